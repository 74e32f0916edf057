"""How testkit/devset_paperlists.jsonl was written (issue 20), kept for the record.

The papers were drawn with random.Random(20) across the seven years; each question was written
by reading that paper's abstract (own words; keyword, title-paraphrase, typo and Chinese ones
too); off-topic and near-miss ones were checked against the abstracts by searching their key
words. Run from the repo root: PYTHONPATH=. uv run python experiments/paperlists_devset_build.py
"""
# ruff: noqa: E501

import collections
import hashlib
import json
import random

from testkit.devset import PAPERLISTS_DEVSET, load_paperlists

ps = [p for p in load_paperlists() if p.abstract]
pick = random.Random(20).sample(range(len(ps)), 105)
S, T, K, Y, C = "summary", "title", "keyword", "typo", "chinese"
ON = [
    (0, S, "theory of why a student classifier learns faster from a teacher's soft labels"),
    (
        1,
        S,
        "node embeddings for graph networks that encode where a node sits relative to randomly chosen reference nodes",
    ),
    (2, K, "active nearest neighbor domain adaptation"),
    (
        3,
        S,
        "policy updates for trajectory optimization that avoid the bias of linearising the dynamics locally",
    ),
    (
        4,
        S,
        "how today's algorithmic decisions hurt some groups' long-term welfare through unequal effort and segregated features",
    ),
    (
        5,
        T,
        "transformer that generates sequences by inserting tokens anywhere instead of left to right",
    ),
    (
        6,
        S,
        "Hamiltonian Monte Carlo that avoids rejecting proposals by running the trajectory longer instead",
    ),
    (7, T, "simple problems where deep learning trained by gradients breaks down"),
    (8, Y, "blended condtional graident method over polytopes"),
    (
        9,
        S,
        "using Kronecker structure to scale Gaussian process inference when the likelihood is not Gaussian",
    ),
    (
        10,
        S,
        "recovering a signal whose linear transform is sparse from noisy measurements, with guarantees",
    ),
    (
        11,
        S,
        "convolutional network with autoregressive-style weighting for irregularly sampled multivariate time series",
    ),
    (
        12,
        S,
        "learning options in hierarchical RL by treating them as latent variables inferred with a policy gradient",
    ),
    (
        13,
        S,
        "choosing which task instances to practise on when learning a skill parameterised by the task",
    ),
    (14, S, "bootstrap resampling to evaluate contextual bandit recommenders offline from logs"),
    (
        15,
        S,
        "showing that a proposed exact parallel MCMC scheme for the Dirichlet process does not work well in practice",
    ),
    (16, K, "differentially private clustering high dimensions"),
    (
        17,
        S,
        "spatio-temporal covariance model learned from a data stream where patterns differ between regions",
    ),
    (
        18,
        S,
        "combining the predictions of several black-box experts that cannot see each other's models or data",
    ),
    (
        19,
        S,
        "a cheaper information-theoretic acquisition function for Bayesian optimisation with fewer approximations",
    ),
    (
        20,
        S,
        "Bayesian optimisation that stops wasting evaluations near the edge of the search region by warping it into a cylinder",
    ),
    (21, T, "LSTM autoencoders learning video representations without labels"),
    (
        22,
        S,
        "bandit with infinitely many arms where only the quality of the final recommended arm counts, not cumulative regret",
    ),
    (23, K, "DBSCAN density level set manifold"),
    (
        24,
        S,
        "iterative generative model of graphs with a graph neural network decoder, for unsupervised graph representations",
    ),
    (
        25,
        S,
        "sample complexity of learning the threshold rule at each vertex of a networked dynamical system",
    ),
    (26, T, "how many samples until the eigenvectors of the sample covariance match the true ones"),
    (27, Y, "greedy MAP inferance for determinantal point procesess"),
    (
        28,
        S,
        "a stochastic differential equation view of accelerated stochastic mirror descent for strongly convex problems",
    ),
    (29, Y, "estimatng continous-time markov chains with huge combinatorial state spaces"),
    (
        30,
        S,
        "reusing local models of several parties who cannot share data, by optimising a multiclass margin",
    ),
    (
        32,
        S,
        "tracking a slowly changing low-dimensional subspace despite sparse outliers, a dynamic robust PCA",
    ),
    (33, S, "adversarial training of survival models on electronic health data"),
    (
        34,
        S,
        "popular natural actor-critic algorithms give biased estimates of the natural policy gradient",
    ),
    (
        35,
        S,
        "splitting an advertising budget across channels when customers only respond above a threshold of influence",
    ),
    (36, S, "boosting for density estimation with convergence guarantees under weaker assumptions"),
    (
        37,
        S,
        "convergence of variance reduced stochastic PCA from a random start, including a block version",
    ),
    (
        38,
        S,
        "energy model with an extra pooling layer that learns transformation codes invariant to image content",
    ),
    (
        39,
        S,
        "non-uniform sampling of training examples to cut the variance of proximal stochastic optimisation",
    ),
    (40, S, "aggregating object tracks in video drawn by many crowd workers"),
    (41, S, "newton-type method for distributed learning that needs few rounds of communication"),
    (
        42,
        S,
        "online visual tracking with a saliency map from the hidden layers of a pretrained CNN",
    ),
    (
        43,
        S,
        "recovering how populations such as differentiating cells evolve from cross-sectional snapshots with a generative RNN",
    ),
    (44, S, "composing regret minimizers like circuits to solve extensive-form games"),
    (
        45,
        S,
        "label complexity when both the human teacher and the computer pick which examples get labelled",
    ),
    (
        46,
        S,
        "using methods from cognitive psychology to test whether deep nets prefer shape over colour",
    ),
    (47, K, "rank-aware factorization machines"),
    (48, S, "Riemannian preconditioning for filling in a low-rank tensor"),
    (
        49,
        S,
        "nonparametric Bayesian subspace clustering that infers the number and dimension of subspaces via small-variance asymptotics",
    ),
    (
        50,
        S,
        "graph networks placed at spatial locations like finite elements to model physical processes",
    ),
    (51, S, "measuring correlation among many dimensions at once rather than between pairs"),
    (52, S, "submodular minimisation and maximisation through sub- and super-gradients"),
    (
        53,
        S,
        "extreme multilabel classification with a primal-dual sparse solver whose cost does not grow with the number of classes",
    ),
    (54, S, "monotonicity and other shape constraints on permutation-invariant set functions"),
    (55, K, "doubly robust off-policy evaluation reinforcement learning"),
    (
        56,
        S,
        "adding reconstruction losses to a supervised ImageNet classifier to make it more accurate",
    ),
    (57, Y, "breaking the softmax botleneck with a learnable monotonic nonlinearity"),
    (
        58,
        S,
        "estimating how accurate classifiers are without labels from how often several of them agree",
    ),
    (
        59,
        S,
        "scaling Gaussian process regression in many input dimensions with additive models on projections",
    ),
    (
        60,
        S,
        "learning an SVM jointly with a feature transformation while accounting for the radius of the enclosing sphere",
    ),
    (
        61,
        S,
        "learning the measurement matrix for compressed sensing from data by unrolling the decoder",
    ),
    (62, T, "flow-based generative model for raw audio waveforms that is faster than WaveNet"),
    (63, K, "integrated gradients attribution axioms"),
    (
        64,
        S,
        "stochastic algorithms for partial least squares to learn representations from two views",
    ),
    (65, S, "combining stochastic dual coordinate ascent with ADMM for structured regularisers"),
    (
        66,
        Y,
        "experiance replay that forgets transitions from policies too far from the current one",
    ),
    (
        67,
        S,
        "two-agent MDP where one agent has to collaborate with a partner whose policy keeps changing",
    ),
    (
        68,
        T,
        "perturbed gradient descent escapes saddle points with almost no dependence on dimension",
    ),
    (
        69,
        S,
        "the distributional Bellman equation seen as a GAN, for multivariate rewards and exploration",
    ),
    (
        70,
        S,
        "how many kernel evaluations kernel ridge regression and kernel k-means really need, tight bounds",
    ),
    (
        71,
        S,
        "extracting a finite automaton from a trained recurrent network by exact learning with counterexamples",
    ),
    (
        72,
        S,
        "distributed augmented Lagrangian method where nodes talk only to neighbours to minimise a sum of composite convex functions",
    ),
    (
        73,
        S,
        "model compression that trains the student on the teacher's intermediate representations",
    ),
    (74, S, "finding patterns unique to one of several overlapping views of the same data"),
    (
        75,
        S,
        "active learning of structured outputs such as bipartite matchings with probabilistic predictions",
    ),
    (
        76,
        S,
        "invertible transforms that turn any density into a uniform one, generalising Gaussianization",
    ),
    (77, S, "joint probabilistic models of source code snippets and natural language"),
    (
        78,
        T,
        "generative model that learns to reverse a slow diffusion process destroying the structure in data",
    ),
    (
        79,
        S,
        "SGD works on a smoothed version of the loss, which explains when it escapes sharp local minima",
    ),
    (80, K, "simplified graph convolution linear model"),
    (81, S, "topic models that capture nonlinear dependencies between words beyond co-occurrence"),
    (
        82,
        S,
        "measuring overfitting in deep RL with procedurally generated training and test levels",
    ),
    (
        83,
        S,
        "combining evolutionary search with a team of gradient-based RL learners for better exploration and less hyperparameter sensitivity",
    ),
    (
        84,
        S,
        "coordinated exploration for a team of RL agents learning at the same time in one environment",
    ),
    (
        85,
        S,
        "regularising latent space models with angular constraints so that components stay diverse",
    ),
    (86, S, "collapsed variational Bayesian learning of sum-product network parameters"),
    (87, S, "latent semi-Markov processes to model correlated point process events"),
    (88, K, "error feedback signSGD"),
    (89, K, "dropconnect"),
    (
        90,
        S,
        "Bayesian inference for tracking many indistinguishable particles in noisy image sequences",
    ),
    (
        91,
        S,
        "collaborative ranking from users' pairwise preferences by fitting a low-rank score matrix",
    ),
    (92, S, "training provably robust networks with differentiable abstract interpretation"),
    (
        93,
        S,
        "do generalization bounds for learning to rank have to get worse as the document list grows",
    ),
    (94, Y, "bayesian optimisation with inequalty constraints"),
    (95, S, "reducing the memory of sequential Monte Carlo when each particle is large"),
    (
        96,
        S,
        "learning a network's structure and its weights together with data-dependent guarantees",
    ),
    (97, S, "randomized mirror descent for multiple kernel learning with a huge number of kernels"),
    (98, S, "compiling latent-variable models into cutset networks that have no latent variables"),
    (
        99,
        S,
        "transfer learning that aligns the joint distributions of several layers across domains",
    ),
    (
        100,
        S,
        "convergence of PGD adversarial training and how well the inner maximisation should be solved",
    ),
    (
        101,
        S,
        "position paper arguing that unreproducible findings can come from reproducible methods",
    ),
    (
        102,
        S,
        "active learning when some labelled data was already collected under a logging policy",
    ),
    (
        103,
        S,
        "gradient descent on a one-hidden-layer CNN can get stuck in a spurious local minimum yet succeeds with random restarts",
    ),
    (
        104,
        S,
        "VAE latent space for optimising black-box functions over structured inputs such as kernel combinations",
    ),
    # Chinese: how a Chinese researcher asks (some English terms kept, as they would be)
    (0, C, "知识蒸馏为什么有效？有没有理论解释"),
    (1, C, "能捕捉节点位置信息的图神经网络"),
    (6, C, "不满足细致平衡条件的哈密顿蒙特卡洛采样"),
    (9, C, "非高斯似然下用Kronecker结构加速高斯过程推断"),
    (16, C, "高维欧氏空间中的差分隐私聚类算法"),
    (20, C, "贝叶斯优化里搜索空间边界问题怎么解决，圆柱形核"),
    (21, C, "用LSTM做视频表示的无监督学习"),
    (33, C, "用对抗学习做生存分析"),
    (44, C, "遗憾最小化器的组合，用于扩展式博弈求解"),
    (55, C, "强化学习中的双重稳健离策略价值评估"),
    (62, C, "基于流模型的原始音频生成，比WaveNet快"),
    (63, C, "深度网络特征归因的公理化方法"),
    (66, C, "经验回放中该记住哪些经验、遗忘哪些经验"),
    (68, C, "如何高效逃离鞍点"),
    (73, C, "通过学习中间表示来做模型压缩"),
    (78, C, "基于非平衡热力学的深度无监督学习"),
    (80, C, "简化的图卷积网络"),
    (88, C, "误差反馈如何修正signSGD等梯度压缩方法"),
    (99, C, "联合适配网络的深度迁移学习"),
    (100, C, "對抗訓練的收斂性與魯棒性"),
    (26, C, "樣本協方差矩陣的特徵向量與真實特徵向量有多接近"),
]
OFF = [
    ("offtopic", "jailbreak attacks on chat assistants"),
    ("offtopic", "neural radiance fields for novel view synthesis"),
    ("offtopic", "detecting deepfake videos of politicians"),
    ("offtopic", "sign language translation from video"),
    ("offtopic", "hate speech detection on twitter"),
    ("offtopic", "watermarking text produced by a chatbot"),
    ("offtopic", "chain of thought prompting for math word problems"),
    ("offtopic", "wildfire spread prediction from satellite imagery"),
    ("offtopic", "lidar object detection for self-driving cars"),
    ("offtopic", "sarcasm detection with emoji features"),
    ("offtopic", "poetry generation in the style of shakespeare"),
    ("offtopic", "ECG arrhythmia classification on wearable devices"),
    ("offtopic", "tokenizer-free byte level pretraining"),
    ("offtopic", "prompt injection in LLM agents"),
    ("offtopic", "crop yield forecasting for smallholder farmers"),
    ("offtopic", "大语言模型的越狱攻击"),
    ("offtopic", "检测深度伪造视频"),
    ("offtopic", "基于卫星图像预测农作物产量"),
    ("nearmiss", "retrieval-augmented generation for open-domain question answering"),
    ("nearmiss", "low-rank adaptation for fine-tuning large language models"),
    ("nearmiss", "vision transformers trained on image patches"),
    ("nearmiss", "mixture of experts routing for trillion parameter language models"),
    ("nearmiss", "speculative decoding to accelerate large language model inference"),
    ("nearmiss", "state space models like Mamba for million-token sequences"),
    ("nearmiss", "machine unlearning: deleting one user's data from a trained model"),
    ("nearmiss", "dose finding in clinical trials with bandits"),
    ("nearmiss", "contrastive image-text pretraining for zero-shot classification"),
    ("nearmiss", "distilling large language models into small chat models"),
    ("nearmiss", "differentially private fine-tuning of language models"),
    ("nearmiss", "graph neural networks for traffic forecasting on road networks"),
    ("nearmiss", "Bayesian optimization of chemical reaction yields in the lab"),
    ("nearmiss", "adversarial robustness of vision transformers"),
    ("nearmiss", "federated learning on hospital electronic health records"),
    ("nearmiss", "named entity recognition with active learning"),
    ("nearmiss", "carbon footprint of training deep networks"),
    ("nearmiss", "code generation with large language models evaluated by unit tests"),
    ("nearmiss", "sparse attention for long document summarization"),
    ("nearmiss", "neural decoders for quantum error correction"),
    ("nearmiss", "大语言模型的低秩适配微调"),
    ("nearmiss", "用图神经网络预测城市交通流量"),
]
records = []
for n, style, q in ON:
    p = ps[pick[n]]
    records.append(
        {"question": q, "style": style, "expect": p.title, "id": p.id, "year": int(p.source[-9:-5])}
    )
for style, q in OFF:
    records.append({"question": q, "style": style, "expect": None, "id": None, "year": None})
# The seed dev set's rule: within each style, by sha256 of the question, alternate tune/heldout.
for style in {r["style"] for r in records}:
    mine = sorted(
        (r for r in records if r["style"] == style),
        key=lambda r: hashlib.sha256(r["question"].encode()).hexdigest(),
    )
    for i, r in enumerate(mine):
        r["split"] = "tune" if i % 2 == 0 else "heldout"
with PAPERLISTS_DEVSET.open("w", encoding="utf-8") as f:
    for r in records:
        out = {
            "question": r["question"],
            "style": r["style"],
            "expect": r["expect"],
            "id": r["id"],
            "split": r["split"],
            "corpus": "paperlists/icml2013-2019",
        }
        f.write(json.dumps(out, ensure_ascii=False) + "\n")
print(collections.Counter((r["style"], r["split"]) for r in records))
