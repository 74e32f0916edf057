"""Writes testkit/devset_paperlists.jsonl: questions over the ICML 2013-2019 paperlists.

105 papers with abstracts were drawn with random.Random(20) across the seven years; each
question was written by reading its paper's abstract (one-sentence summaries in the writer's
own words, title paraphrases, keywords, typos, Chinese). Off-topic and near-miss questions
were checked against every abstract by searching their key words. The split is the seed dev
set's rule (`testkit.devset`), and the file was committed before anything was measured on it.
Deterministic: rerunning it rewrites the same file.

    uv run python -m testkit.build_paperlists_devset [--output PATH]
"""
# ruff: noqa: E501 -- the questions below are data, one a line

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from bot.corpus import Paper
from testkit.devset import (
    PAPERLISTS_DEVSET,
    drawn_records,
    load_paperlists,
    off_topic_records,
    with_splits,
    write_devset,
)

DRAWN = 105
SEED = 20
CORPUS = "paperlists/icml2013-2019"

# "<drawn paper number> <style> <question>"
ON_TOPIC = """
0 summary theory of why a student classifier learns faster from a teacher's soft labels
1 summary node embeddings for graph networks that encode where a node sits relative to randomly chosen reference nodes
2 keyword active nearest neighbor domain adaptation
3 summary policy updates for trajectory optimization that avoid the bias of linearising the dynamics locally
4 summary how today's algorithmic decisions hurt some groups' long-term welfare through unequal effort and segregated features
5 title transformer that generates sequences by inserting tokens anywhere instead of left to right
6 summary Hamiltonian Monte Carlo that avoids rejecting proposals by running the trajectory longer instead
7 title simple problems where deep learning trained by gradients breaks down
8 typo blended condtional graident method over polytopes
9 summary using Kronecker structure to scale Gaussian process inference when the likelihood is not Gaussian
10 summary recovering a signal whose linear transform is sparse from noisy measurements, with guarantees
11 summary convolutional network with autoregressive-style weighting for irregularly sampled multivariate time series
12 summary learning options in hierarchical RL by treating them as latent variables inferred with a policy gradient
13 summary choosing which task instances to practise on when learning a skill parameterised by the task
14 summary bootstrap resampling to evaluate contextual bandit recommenders offline from logs
15 summary showing that a proposed exact parallel MCMC scheme for the Dirichlet process does not work well in practice
16 keyword differentially private clustering high dimensions
17 summary spatio-temporal covariance model learned from a data stream where patterns differ between regions
18 summary combining the predictions of several black-box experts that cannot see each other's models or data
19 summary a cheaper information-theoretic acquisition function for Bayesian optimisation with fewer approximations
20 summary Bayesian optimisation that stops wasting evaluations near the edge of the search region by warping it into a cylinder
21 title LSTM autoencoders learning video representations without labels
22 summary bandit with infinitely many arms where only the quality of the final recommended arm counts, not cumulative regret
23 keyword DBSCAN density level set manifold
24 summary iterative generative model of graphs with a graph neural network decoder, for unsupervised graph representations
25 summary sample complexity of learning the threshold rule at each vertex of a networked dynamical system
26 title how many samples until the eigenvectors of the sample covariance match the true ones
27 typo greedy MAP inferance for determinantal point procesess
28 summary a stochastic differential equation view of accelerated stochastic mirror descent for strongly convex problems
29 typo estimatng continous-time markov chains with huge combinatorial state spaces
30 summary reusing local models of several parties who cannot share data, by optimising a multiclass margin
32 summary tracking a slowly changing low-dimensional subspace despite sparse outliers, a dynamic robust PCA
33 summary adversarial training of survival models on electronic health data
34 summary popular natural actor-critic algorithms give biased estimates of the natural policy gradient
35 summary splitting an advertising budget across channels when customers only respond above a threshold of influence
36 summary boosting for density estimation with convergence guarantees under weaker assumptions
37 summary convergence of variance reduced stochastic PCA from a random start, including a block version
38 summary energy model with an extra pooling layer that learns transformation codes invariant to image content
39 summary non-uniform sampling of training examples to cut the variance of proximal stochastic optimisation
40 summary aggregating object tracks in video drawn by many crowd workers
41 summary newton-type method for distributed learning that needs few rounds of communication
42 summary online visual tracking with a saliency map from the hidden layers of a pretrained CNN
43 summary recovering how populations such as differentiating cells evolve from cross-sectional snapshots with a generative RNN
44 summary composing regret minimizers like circuits to solve extensive-form games
45 summary label complexity when both the human teacher and the computer pick which examples get labelled
46 summary using methods from cognitive psychology to test whether deep nets prefer shape over colour
47 keyword rank-aware factorization machines
48 summary Riemannian preconditioning for filling in a low-rank tensor
49 summary nonparametric Bayesian subspace clustering that infers the number and dimension of subspaces via small-variance asymptotics
50 summary graph networks placed at spatial locations like finite elements to model physical processes
51 summary measuring correlation among many dimensions at once rather than between pairs
52 summary submodular minimisation and maximisation through sub- and super-gradients
53 summary extreme multilabel classification with a primal-dual sparse solver whose cost does not grow with the number of classes
54 summary monotonicity and other shape constraints on permutation-invariant set functions
55 keyword doubly robust off-policy evaluation reinforcement learning
56 summary adding reconstruction losses to a supervised ImageNet classifier to make it more accurate
57 typo breaking the softmax botleneck with a learnable monotonic nonlinearity
58 summary estimating how accurate classifiers are without labels from how often several of them agree
59 summary scaling Gaussian process regression in many input dimensions with additive models on projections
60 summary learning an SVM jointly with a feature transformation while accounting for the radius of the enclosing sphere
61 summary learning the measurement matrix for compressed sensing from data by unrolling the decoder
62 title flow-based generative model for raw audio waveforms that is faster than WaveNet
63 keyword integrated gradients attribution axioms
64 summary stochastic algorithms for partial least squares to learn representations from two views
65 summary combining stochastic dual coordinate ascent with ADMM for structured regularisers
66 typo experiance replay that forgets transitions from policies too far from the current one
67 summary two-agent MDP where one agent has to collaborate with a partner whose policy keeps changing
68 title perturbed gradient descent escapes saddle points with almost no dependence on dimension
69 summary the distributional Bellman equation seen as a GAN, for multivariate rewards and exploration
70 summary how many kernel evaluations kernel ridge regression and kernel k-means really need, tight bounds
71 summary extracting a finite automaton from a trained recurrent network by exact learning with counterexamples
72 summary distributed augmented Lagrangian method where nodes talk only to neighbours to minimise a sum of composite convex functions
73 summary model compression that trains the student on the teacher's intermediate representations
74 summary finding patterns unique to one of several overlapping views of the same data
75 summary active learning of structured outputs such as bipartite matchings with probabilistic predictions
76 summary invertible transforms that turn any density into a uniform one, generalising Gaussianization
77 summary joint probabilistic models of source code snippets and natural language
78 title generative model that learns to reverse a slow diffusion process destroying the structure in data
79 summary SGD works on a smoothed version of the loss, which explains when it escapes sharp local minima
80 keyword simplified graph convolution linear model
81 summary topic models that capture nonlinear dependencies between words beyond co-occurrence
82 summary measuring overfitting in deep RL with procedurally generated training and test levels
83 summary combining evolutionary search with a team of gradient-based RL learners for better exploration and less hyperparameter sensitivity
84 summary coordinated exploration for a team of RL agents learning at the same time in one environment
85 summary regularising latent space models with angular constraints so that components stay diverse
86 summary collapsed variational Bayesian learning of sum-product network parameters
87 summary latent semi-Markov processes to model correlated point process events
88 keyword error feedback signSGD
89 keyword dropconnect
90 summary Bayesian inference for tracking many indistinguishable particles in noisy image sequences
91 summary collaborative ranking from users' pairwise preferences by fitting a low-rank score matrix
92 summary training provably robust networks with differentiable abstract interpretation
93 summary do generalization bounds for learning to rank have to get worse as the document list grows
94 typo bayesian optimisation with inequalty constraints
95 summary reducing the memory of sequential Monte Carlo when each particle is large
96 summary learning a network's structure and its weights together with data-dependent guarantees
97 summary randomized mirror descent for multiple kernel learning with a huge number of kernels
98 summary compiling latent-variable models into cutset networks that have no latent variables
99 summary transfer learning that aligns the joint distributions of several layers across domains
100 summary convergence of PGD adversarial training and how well the inner maximisation should be solved
101 summary position paper arguing that unreproducible findings can come from reproducible methods
102 summary active learning when some labelled data was already collected under a logging policy
103 summary gradient descent on a one-hidden-layer CNN can get stuck in a spurious local minimum yet succeeds with random restarts
104 summary VAE latent space for optimising black-box functions over structured inputs such as kernel combinations
0 chinese 知识蒸馏为什么有效？有没有理论解释
1 chinese 能捕捉节点位置信息的图神经网络
6 chinese 不满足细致平衡条件的哈密顿蒙特卡洛采样
9 chinese 非高斯似然下用Kronecker结构加速高斯过程推断
16 chinese 高维欧氏空间中的差分隐私聚类算法
20 chinese 贝叶斯优化里搜索空间边界问题怎么解决，圆柱形核
21 chinese 用LSTM做视频表示的无监督学习
33 chinese 用对抗学习做生存分析
44 chinese 遗憾最小化器的组合，用于扩展式博弈求解
55 chinese 强化学习中的双重稳健离策略价值评估
62 chinese 基于流模型的原始音频生成，比WaveNet快
63 chinese 深度网络特征归因的公理化方法
66 chinese 经验回放中该记住哪些经验、遗忘哪些经验
68 chinese 如何高效逃离鞍点
73 chinese 通过学习中间表示来做模型压缩
78 chinese 基于非平衡热力学的深度无监督学习
80 chinese 简化的图卷积网络
88 chinese 误差反馈如何修正signSGD等梯度压缩方法
99 chinese 联合适配网络的深度迁移学习
100 chinese 對抗訓練的收斂性與魯棒性
26 chinese 樣本協方差矩陣的特徵向量與真實特徵向量有多接近
"""

# "<style> <question>": no paper covers these.
OFF_TOPIC = """
offtopic jailbreak attacks on chat assistants
offtopic neural radiance fields for novel view synthesis
offtopic detecting deepfake videos of politicians
offtopic sign language translation from video
offtopic hate speech detection on twitter
offtopic watermarking text produced by a chatbot
offtopic chain of thought prompting for math word problems
offtopic wildfire spread prediction from satellite imagery
offtopic lidar object detection for self-driving cars
offtopic sarcasm detection with emoji features
offtopic poetry generation in the style of shakespeare
offtopic ECG arrhythmia classification on wearable devices
offtopic tokenizer-free byte level pretraining
offtopic prompt injection in LLM agents
offtopic crop yield forecasting for smallholder farmers
offtopic 大语言模型的越狱攻击
offtopic 检测深度伪造视频
offtopic 基于卫星图像预测农作物产量
nearmiss retrieval-augmented generation for open-domain question answering
nearmiss low-rank adaptation for fine-tuning large language models
nearmiss vision transformers trained on image patches
nearmiss mixture of experts routing for trillion parameter language models
nearmiss speculative decoding to accelerate large language model inference
nearmiss state space models like Mamba for million-token sequences
nearmiss machine unlearning: deleting one user's data from a trained model
nearmiss dose finding in clinical trials with bandits
nearmiss contrastive image-text pretraining for zero-shot classification
nearmiss distilling large language models into small chat models
nearmiss differentially private fine-tuning of language models
nearmiss graph neural networks for traffic forecasting on road networks
nearmiss Bayesian optimization of chemical reaction yields in the lab
nearmiss adversarial robustness of vision transformers
nearmiss federated learning on hospital electronic health records
nearmiss named entity recognition with active learning
nearmiss carbon footprint of training deep networks
nearmiss code generation with large language models evaluated by unit tests
nearmiss sparse attention for long document summarization
nearmiss neural decoders for quantum error correction
nearmiss 大语言模型的低秩适配微调
nearmiss 用图神经网络预测城市交通流量
"""


def records(papers: Sequence[Paper]) -> list[dict[str, str | None]]:
    """The dev set's records in file order, each with its split."""
    rows = drawn_records(papers, ON_TOPIC, seed=SEED, drawn=DRAWN) + off_topic_records(OFF_TOPIC)
    return with_splits(rows, CORPUS)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=PAPERLISTS_DEVSET)
    args = parser.parse_args(argv)
    rows = records(load_paperlists())
    write_devset(args.output, rows)


if __name__ == "__main__":
    main()
