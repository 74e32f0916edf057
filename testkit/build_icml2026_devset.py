"""Writes testkit/devset_icml2026.jsonl: questions over the real ICML 2026 programme (6,628).

40 papers with abstracts were drawn with random.Random(2026); for each, one question of every
written style was written by reading its abstract: keyword (a few of the field's terms),
question (a question in the asker's own words), paraphrase (a vague, loose description with a
typo or two), chinese (简体) and summary (a one-line summary of the paper). The name style is
about typing, so it is generated: 42 papers whose title leads with a coined name before the
colon (CamelCase, hyphens, digits, superscripts, Greek) (30 of letters only, 12 with digits, superscripts or Greek letters) were drawn with
random.Random(7) and
each name is typed one way: split into words, joined in lower case, hyphenated, camelCase,
superscripts as digits, Greek spelled out. Off-topic and near-miss questions were checked
against the abstracts by searching their key words. Split: the seed dev set's rule
(`testkit.devset`) within each style, fixed and committed before anything was measured.
Deterministic: rerunning it rewrites the same file.

    uv run python -m testkit.build_icml2026_devset [--output PATH]
"""
# ruff: noqa: E501 -- the questions below are data, one a line

from __future__ import annotations

import argparse
import collections
import random
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from bot.corpus import Paper
from testkit.devset import (
    ICML2026,
    ICML2026_DEVSET,
    drawn_records,
    off_topic_records,
    with_splits,
    write_devset,
)

DRAWN = 40
SEED = 2026
NAME_SEED = 7
CORPUS = "icml2026"

# "<drawn paper number> <style> <question>"
ON_TOPIC = """
0 keyword agentic coding benchmark software engineering LLM task types
0 question is there a benchmark that tests coding agents on more than python bug fixing?
0 paraphrase a big evalution suite for AI programers covering many kinds of dev tasks
0 chinese 统一评估大语言模型智能体编程能力的基准
0 summary a production-aligned benchmark unifying many software engineering task types and languages to evaluate LLM coding agents
1 keyword 3D reasoning segmentation viewpoint optimization differentiable rendering
1 question how can a multimodal LLM segment objects in a point cloud from a text instruction by choosing good camera views?
1 paraphrase picking the best angle to look at a 3d scene so a chatbot can find the object you describe, rendred differentiably
1 chinese 通过可微渲染优化视角的三维推理分割
1 summary renders point clouds from text-optimized viewpoints so an MLLM can localize and segment the objects an instruction describes
2 keyword clustered multitask learning Neyman orthogonal nuisance
2 question how to do multitask learning when tasks cluster but each has its own infinite-dimensional nuisance part?
2 paraphrase grouping related estimation problems togther while their nuisance functions differ, with debiased inference
2 chinese 基于Neyman正交性的半参数聚类多任务学习
2 summary an adaptive fused orthogonal estimator that recovers latent task clusters in semiparametric multitask learning with heterogeneous nuisances
3 keyword chain of thought intrinsic dimensionality generalization
3 question why do some chain-of-thought strategies generalize better than others?
3 paraphrase good step by step reasoning makes the task lower dimensonal, which explains why it helps
3 chinese 有效的思维链推理降低内在维度
3 summary measures the intrinsic dimensionality of different reasoning chains and links lower dimensionality to better generalization
4 keyword distributed multimodal LLM training framework heterogeneous modules
4 question how to train a multimodal LLM efficiently across many GPUs when the encoders and the LLM are so different?
4 paraphrase a system that makes training vision+audio+text models on clusters fater, handling their mixed architecture
4 chinese 高效的分布式多模态大模型训练框架
4 summary a distributed training system that accounts for the heterogeneous modules and data of multimodal LLMs
5 keyword shortcut flow matching few-step image generation scaling
5 question can flow matching give fast few-step image generation without distilling a teacher model?
5 paraphrase scaling shortcut models along several axes to generate pictures quickly without distilation
5 chinese 多维捷径流用于高效生成建模
5 summary scales shortcut flow matching along multiple dimensions for few-step image generation without a teacher
6 keyword data linkage attack LLM agents privacy
6 question can LLM agents re-identify people by piecing together scattered harmless information?
6 paraphrase ai agents figuring out who someone is from bits of anonymised data, like the old netflix atack
6 chinese 大语言模型智能体在数据链接攻击中的隐私风险
6 summary a benchmark showing LLM agents can reconstruct identities by aggregating non-identifying signals, reproducing the Netflix and AOL linkage attacks
7 keyword probabilistic programming language LLM flows uncertainty
7 question how can developers measure and propagate uncertainty through a pipeline of several LLM calls?
7 paraphrase a programing language where chains of llm calls carry confidence estimates along
7 chinese 把大语言模型工作流表示为概率程序以量化不确定性
7 summary a probabilistic programming language for LLM pipelines that quantifies and propagates uncertainty across calls
8 keyword row-stochastic doubly stochastic matrix decentralized learning
8 question in decentralized learning with weighted node losses, is it better to use a row-stochastic mixing matrix?
8 paraphrase gossip averaging with unequal node weights, where a non symmetric mixing matrix beats the standard one
8 chinese 去中心化学习中行随机矩阵优于双随机矩阵
8 summary keeping the original losses with a weight-induced row-stochastic matrix can provably beat reweighting them with a doubly stochastic one
9 keyword AI-generated image forgery detection pretrained neural anchors
9 question can we detect AI-generated images with features already inside a pretrained model, without fine-tuning it?
9 paraphrase spotting fake generated photos by finding neurons in a frozen backbone that already know about forgeries
9 chinese 无需微调，从预训练模型中挖掘伪造检测能力
9 summary locates discriminative neurons in frozen pretrained models that already encode forgery cues, to detect generated images
10 keyword CLIP concept binding embeddings
10 question why does CLIP mix up which color goes with which shape?
10 paraphrase how vision language embedings tie attributes to the right object in a scene with many objects
10 chinese 视觉语言嵌入模型如何绑定概念
10 summary studies the binding function that maps concepts to CLIP scene embeddings to explain its bag-of-concepts behaviour
11 keyword multimodal time series forecasting benchmark textual context
11 question is there a large benchmark for forecasting time series with accompanying text and without data leakage?
11 paraphrase a new testbed for predicting series when you also have text descriptions, real data not synthetic
11 chinese 多模态时间序列预测评测基准
11 summary a context-enriched multimodal forecasting benchmark of real series with automatically generated textual contexts and leak-free evaluation
12 keyword Boltzmann generators autoregressive molecular equilibrium sampling
12 question can an autoregressive model replace normalizing flows for sampling molecular equilibrium states?
12 paraphrase sampling molecule conformations at thermal equilibirum with an autoregressive generator plus importance weights
12 chinese 自回归玻尔兹曼生成器
12 summary replaces normalizing flows in Boltzmann generators with autoregressive models that have exact likelihoods
13 keyword meta-learning structure-preserving dynamics conservation laws
13 question how can physics models that conserve energy adapt to new system parameters without retraining?
13 paraphrase learning hamiltonian style dynamics that transfer acros different physical configurations
13 chinese 元学习保结构动力学
13 summary meta-learns structure-preserving dynamics models that adapt to unseen system parameters without per-configuration retraining
14 keyword one-step generation mean flows trajectory consistency
14 question how to make a flow model generate in one step while keeping long trajectories consistent?
14 paraphrase single step sampling for flow generatve models using a linear surogate of the consistency constraint
14 chinese 基于欧拉均值流的一步生成
14 summary replaces the long-range trajectory consistency constraint with a linear surrogate for one-step and few-step flow generation
15 keyword error distribution test-time scaling majority vote diverse failures
15 question how to make an LLM's wrong answers diverse so that majority voting works better?
15 paraphrase training models so their mistakes are spread out rather then all the same, which helps voting at inference
15 chinese 塑造错误分布以提升大模型推理中的多数投票
15 summary shapes the distribution of an LLM's errors to be diverse so that aggregation and refinement at test time work better
16 keyword multi-fidelity regression tabular foundation model in-context learning
16 question can a tabular foundation model do multi-fidelity regression without training, instead of a Gaussian process?
16 paraphrase combining cheap and expensive simulations with TabPFN style in context models, no traning needed
16 chinese 基于表格基础模型的多保真度回归
16 summary a training-free multi-fidelity regression that conditions a tabular foundation model on the low-fidelity posterior
17 keyword token compression omni-modal LLM audio video layer-adaptive
17 question how to cut the cost of audio-video LLMs by dropping tokens differently at each layer?
17 paraphrase training free pruning of audio and video tokens in omni models, adapting per layer
17 chinese 全模态大模型的逐层自适应token压缩
17 summary a training-free layer-adaptive token compression for omnimodal LLMs that respects cross-modal alignment
18 keyword KV cache eviction information bottleneck
18 question is there a principled theory for which KV cache entries to evict in long-context inference?
18 paraphrase deciding what to throw out of the key value cahce using mutual information instead of heuristics
18 chinese 基于信息瓶颈的KV缓存淘汰
18 summary derives a closed-form mutual-information objective for choosing which KV cache entries to keep
19 keyword convex optimization preference alignment single GPU
19 question can I align a language model with human preferences cheaply on one GPU instead of RLHF?
19 paraphrase a convex reformulation of preference tuning so it runs on a single graphics card
19 chinese 在单个GPU上用凸优化做偏好对齐
19 summary recasts preference alignment as a convex problem that trains on a single GPU as an alternative to DPO
20 keyword analytical diffusion empirical Bayes posterior mean scalability
20 question how to avoid scanning the whole dataset at every step in analytical, training-free diffusion models?
20 paraphrase making closed form diffusion models fast by using only a subset of the training data per timestep
20 chinese 快速可扩展的解析扩散模型
20 summary speeds up analytical diffusion by showing the posterior mean needs only a small subset of the data at each timestep
21 keyword offline federated reinforcement learning client aggregation policy inconsistency
21 question how should a server weight clients when aggregating offline RL models in federated learning?
21 paraphrase federated offline reinforcment learning where client weights consider both Q values and policy mismatch
21 chinese 离线联邦深度强化学习中的客户端聚合
21 summary weights clients in offline federated deep RL by their expected returns and policy inconsistency
22 keyword LLM multi-agent system scaling router monotonic improvement
22 question how can I add new agents to a multi-agent LLM system without the router's performance collapsing?
22 paraphrase growing a pool of ai agents without things getting worse when the router meets unfamilar agents
22 chinese 多智能体系统扩展时保证性能单调提升
22 summary an expansion-aware update that warms the router up on new agents so a growing multi-agent system improves monotonically
23 keyword renormalization group state space model scale-invariant sequence modeling
23 question can a state space model generalize to much longer sequences by sharing one operator across scales?
23 paraphrase a recursive mamba with shared weights that handles any resolution, inspired by physics renormalisation
23 chinese 尺度不变的序列建模：分形Mamba
23 summary a recursive state-space model sharing one operator across scales, viewed as a renormalization group flow
24 keyword vision-language-action model multimodal chain-of-thought robot manipulation
24 question how can a robot policy reason in text, imagine future frames and predict actions in one model?
24 paraphrase one robot model that thinks in words, pictures the next scene, then acts, for long horizon tasks
24 chinese 统一的视觉-语言-动作模型与多模态思维链
24 summary a unified VLA model that jointly does textual reasoning, visual foresight and action prediction for embodied tasks
25 keyword pairwise comparisons zeroth-order optimization random search nonconvex
25 question how to minimize a nonconvex function when all you get are noisy comparisons of two points?
25 paraphrase optimizing with only noisy "which is better" feedback, scaling with the intrinsic not the ambient dimesion
25 chinese 基于噪声成对比较的随机搜索优化
25 summary a direct-search method using noisy pairwise comparisons whose complexity depends on the intrinsic dimension
26 keyword rectified flow inversion FLUX image editing spherical
26 question how to invert images accurately in FLUX for editing without training?
26 paraphrase fixing discretisation error when turning a picture back into noise with rectified flow, using spherical interpolation
26 chinese 整流流模型的球面轨迹反演
26 summary a zero-shot spherical trajectory correction for accurate rectified-flow inversion and editing with FLUX
27 keyword layer dropout stochastic depth LLM pretraining
27 question should LLM pretraining use layer dropout again?
27 paraphrase bringing back stochastic depth for big language models to train faster and prune layers later
27 chinese 层dropout用于高效大模型训练与推理
27 summary shows that layer dropout, with its accuracy cost mitigated, makes LLM training faster and layer pruning robust
28 keyword Lion optimizer convergence rate distributed variance reduction
28 question what is the convergence rate of the Lion optimizer?
28 paraphrase theory for the sign based optimizer found by program search, incl. a distributed vesion
28 chinese Lion优化器的收敛性分析
28 summary proves convergence rates for Lion, a variance-reduced variant and its distributed versions
29 keyword distributionally robust Markov games average reward Nash equilibrium
29 question do robust Nash equilibria exist in multi-agent games with average reward under model uncertainty?
29 paraphrase multi player reinforcement learning robust to model misspecification, long run avg reward
29 chinese 平均奖励下的分布鲁棒马尔可夫博弈
29 summary defines distributionally robust Markov games under the average-reward criterion and proves stationary Nash equilibria exist
30 keyword antibody language model germline somatic hypermutation
30 question do antibody language models do better if they know which residues come from germline genes?
30 paraphrase protein models for antibodies that tell apart inherited positions from mutated ones
30 chinese 区分胚系与非胚系残基的抗体语言模型
30 summary explicitly marks germline and non-germline residues to improve antibody language models
31 keyword floating-point neural network universal approximation automatic differentiation gradients
31 question can neural networks in floating-point arithmetic represent a function and its gradient?
31 paraphrase universal approximation but with real computer rounding, including the derivatives from autodiff
31 chinese 浮点神经网络能表示几乎所有浮点函数及其梯度
31 summary proves floating-point networks with autodiff can represent almost all floating-point functions and their gradients
32 keyword copyright protection diffusion models signatures unauthorized use
32 question how to stop people from using a stolen diffusion model unless they hold an authorized key?
32 paraphrase a backdoor style lock on image generators so only people with the right signature get good outputs
32 chinese 扩散模型的主动版权保护
32 summary builds authorization into a diffusion model via learnable sample-specific signatures so unauthorized use gets degraded outputs
33 keyword fairness sufficiency calibrated scores thresholding
33 question how to get an optimal fair classifier under the sufficiency criterion when thresholding calibrated scores fails?
33 paraphrase group calibration fairness where a single cut off doesnt work, finding the optimal rule
33 chinese 满足充分性公平约束的最优分类
33 summary characterizes optimal classifiers that satisfy sufficiency, since thresholding calibrated scores violates it
34 keyword spatial causal inference interference unmeasured confounding
34 question how to estimate causal effects on a map when there are hidden spatial confounders and spillover from neighbours?
34 paraphrase causal effects in geographic data with pollution-like hidden factors and treatments leaking to nearby places
34 chinese 考虑干扰的空间因果推断去混杂
34 summary uses interference from nearby treatments to reconstruct a substitute for unmeasured spatial confounders
35 keyword sparse autoencoders medical image segmentation interpretability model diffing
35 question how can sparse autoencoders explain why a tumour segmentation model fails on another hospital's data?
35 paraphrase interpretable features of brain tumor segmentation networks compared across models and patient groups
35 chinese 用稀疏自编码器解释医学图像分割模型
35 summary model diffing with sparse autoencoders on SegFormer and U-Net to interpret glioma segmentation across cohorts
36 keyword time series foundation models domain-specific benchmarks position
36 question are time series foundation model benchmarks hiding poor performance in domains like healthcare?
36 paraphrase opinion paper saying forecasting foundation models need evaluation per field, not pooled
36 chinese 时间序列基础模型需要领域级评测基准
36 summary argues time-series foundation models must be benchmarked per domain rather than on pooled datasets
37 keyword molecular docking consistency diffusion quantization latency
37 question can protein docking with diffusion run in under a second for AI agents?
37 paraphrase making diffusion based docking fast enough for interactive science agents, with quantisation
37 chinese 亚秒级分子对接的量化一致性扩散
37 summary combines consistency distillation and quantization to make diffusion docking fast enough for agent workflows
38 keyword best-of-N selection latent dynamics verification
38 question can the hidden state dynamics of an LLM tell which sampled answer is right better than logit confidence?
38 paraphrase picking the best of many sampled reasoning paths by watching the model's internal state settle
38 chinese 基于潜在动力学的Best-of-N选择
38 summary uses metastable dynamics of hidden states as a verifier signal for sample-efficient best-of-N selection
39 keyword camera control video diffusion noise warping
39 question how to control camera motion in a video diffusion model by warping the noise?
39 paraphrase precise camara pose in generated videos by turning geometry flow into warped noise
39 chinese 通过几何流引导的噪声扭曲实现视频扩散中的相机控制
39 summary encodes camera motion as geometry-flow-warped noise for faithful camera control in video diffusion
"""

# "<style> <question>": no paper covers these (checked by searching the abstracts).
OFF_TOPIC = """
offtopic vegan lasagna recipe without an oven
offtopic how to fix a leaking kitchen faucet
offtopic cheap flights from london to seoul in july
offtopic knitting patterns for beginners
offtopic who won the football world cup final
offtopic history of the roman empire's fall
offtopic symptoms of the flu in toddlers
offtopic how to file my income tax return
offtopic best hiking trails in the alps
offtopic guitar chords for wonderwall
offtopic how to train a puppy to sit
offtopic renaissance painting techniques with egg tempera
offtopic what's the weather in busan tomorrow
offtopic how to grow tomatoes on a balcony
offtopic 红烧肉的做法
offtopic 北京明天天气怎么样
offtopic 如何学习弹钢琴
offtopic 首尔有哪些好玩的景点
nearmiss sarcasm detection in tweets with emoji
nearmiss crop yield forecasting from farm sensor data
nearmiss music genre classification from spectrograms
nearmiss handwritten signature verification
nearmiss predicting stock prices from twitter sentiment
nearmiss extracting clauses from legal contracts
nearmiss sign language translation from video
nearmiss hate speech detection on social media
nearmiss credit scoring with gradient boosted trees
nearmiss automated essay scoring for students
nearmiss source code plagiarism detection
nearmiss skin lesion classification from dermoscopy images
nearmiss wind power forecasting for turbines
nearmiss poker bots with counterfactual regret minimization
nearmiss house price prediction with real estate listings
nearmiss electricity load forecasting for the power grid
nearmiss 推特上的讽刺检测
nearmiss 基于皮肤镜图像的皮肤病变分类
nearmiss 用神经网络预测房价
nearmiss 电力负荷预测
"""

GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "λ": "lambda",
         "μ": "mu", "π": "pi", "σ": "sigma", "τ": "tau", "φ": "phi", "ω": "omega", "θ": "theta"}  # fmt: skip
KINDS = ("split", "joined", "hyphen", "camel")
NAME_DRAWN = (30, 12)
"""Names of letters only, and names with digits, superscripts or Greek letters."""


_BOUNDARY = re.compile(
    r"(?<=[a-z])(?=[A-Z][a-z]{2})|(?<=[A-Z]{2})(?=[A-Z][a-z]{2})|(?<=\d)(?=[A-Z][a-z])"
    r"|(?<=[a-z]{3})(?=[A-Z]{2,}$)"
)


def name_parts(name: str) -> list[str]:
    """A coined name's words as a reader splits it: at hyphens, at a capitalised word
    (StepCodeReasoner, SWEBench), at a trailing acronym (EntroKV); Greek spelled out."""
    name = unicodedata.normalize("NFKC", name)
    for letter, spelled in GREEK.items():
        name = name.replace(letter, f" {spelled} ")
    words = []
    for part in re.split(r"[\s\-_‑–.]+", name):
        words += _BOUNDARY.split(part)
    return [w for w in words if w]


def typed(name: str, kind: str) -> str:
    """The name as someone types it: split, joined, hyphenated or camelCase."""
    words = name_parts(name)
    if kind == "split":
        return " ".join(w.lower() for w in words)
    if kind == "joined":
        return "".join(w.lower() for w in words)
    if kind == "hyphen":
        return "-".join(w.capitalize() for w in words)
    return words[0].lower() + "".join(w.capitalize() for w in words[1:])


def named_papers(papers: Sequence[Paper]) -> list[tuple[str, Paper]]:
    """Papers whose title leads with a coined one-word name used by no other title's lead."""
    leads: collections.Counter[str] = collections.Counter()
    found = []
    for p in papers:
        m = re.match(r"^([^\s:()]{3,30}):\s", p.title)
        if not m:
            continue
        name = m.group(1)
        leads["".join(name_parts(name)).lower()] += 1
        coined = re.search(r"[a-z][A-Z]|[A-Za-z]-[A-Za-z]|[A-Za-z]\d|[^\x00-\x7f]", name)
        if coined and len(name_parts(name)) >= 2:
            found.append((name, p))
    return [(n, p) for n, p in found if leads["".join(name_parts(n)).lower()] == 1]


def name_records(papers: Sequence[Paper]) -> list[dict[str, str | None]]:
    """One typed variant of each drawn paper's leading name."""
    named = named_papers(papers)
    rng = random.Random(NAME_SEED)
    drawn = []
    for group, count in zip((False, True), NAME_DRAWN, strict=True):
        mine = [n for n in named if bool(re.search(r"[^A-Za-z-]", n[0])) == group]
        drawn += rng.sample(mine, count)
    out = []
    for i, (name, paper) in enumerate(drawn):
        question = typed(name, KINDS[i % len(KINDS)])
        if question == name:
            question = typed(name, "split")
        out.append({"question": question, "style": "name", "expect": paper.title, "id": paper.id})
    return out


def records(papers: Sequence[Paper]) -> list[dict[str, str | None]]:
    """The dev set's records in file order, each with its split."""
    rows = drawn_records(papers, ON_TOPIC, seed=SEED, drawn=DRAWN)
    rows += name_records([p for p in papers if p.abstract])
    return with_splits(rows + off_topic_records(OFF_TOPIC), CORPUS)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ICML2026_DEVSET)
    args = parser.parse_args(argv)
    from bot.corpus import load_corpus

    rows = records(list(load_corpus([ICML2026]).papers))
    write_devset(args.output, rows)


if __name__ == "__main__":
    main()
