"""The arena's statistics: bootstrap intervals over duplicate groups, paired tests.

The unit of every statistic is the *duplicate group*: one set of packs played
once per rotation of the agents through the seats.  Card luck is shared
inside a group, so groups are independent and exchangeable, which is what
the bootstrap and the paired test need.  A mean per deal is a ratio (reward
summed over groups / deals summed over groups), and the bootstrap resamples
whole groups and recomputes that ratio.
"""

from __future__ import annotations

import math

import numpy as np

BOOTSTRAP_SAMPLES = 2000


def _as_arrays(rewards: np.ndarray, deals: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    rewards = np.asarray(rewards, dtype=np.float64)
    deals = np.ones_like(rewards) if deals is None else np.asarray(deals, dtype=np.float64)
    if rewards.ndim != 1 or rewards.shape != deals.shape:
        raise ValueError(f"rewards and deals must be 1-d arrays of one length, got {rewards.shape}, {deals.shape}")
    if rewards.size == 0:
        raise ValueError("no groups to summarise")
    if (deals <= 0).any():
        raise ValueError("every group must hold at least one deal")
    return rewards, deals


def ratio_mean(rewards: np.ndarray, deals: np.ndarray | None = None) -> float:
    """Mean reward per deal: total reward over total deals."""
    rewards, deals = _as_arrays(rewards, deals)
    return float(rewards.sum() / deals.sum())


def bootstrap_ci(rewards: np.ndarray, deals: np.ndarray | None = None, *, level: float = 0.95,
                 samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean per deal, resampling groups.

    ``rewards[g]`` is the reward summed over group ``g`` and ``deals[g]`` its
    number of deals (default one per group, i.e. a plain mean).
    """
    rewards, deals = _as_arrays(rewards, deals)
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, rewards.size, size=(samples, rewards.size))
    means = rewards[picks].sum(axis=1) / deals[picks].sum(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


def bootstrap_difference_ci(rewards_a: np.ndarray, deals_a: np.ndarray, rewards_b: np.ndarray,
                            deals_b: np.ndarray, *, level: float = 0.95, samples: int = BOOTSTRAP_SAMPLES,
                            seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of (mean per deal of A) - (mean per deal of B),
    resampling groups *paired*: both agents' results of a group move together."""
    rewards_a, deals_a = _as_arrays(rewards_a, deals_a)
    rewards_b, deals_b = _as_arrays(rewards_b, deals_b)
    if rewards_a.shape != rewards_b.shape:
        raise ValueError("paired groups: A and B need results for the same groups")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, rewards_a.size, size=(samples, rewards_a.size))
    differences = (rewards_a[picks].sum(axis=1) / deals_a[picks].sum(axis=1)
                   - rewards_b[picks].sum(axis=1) / deals_b[picks].sum(axis=1))
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(differences, [tail, 1.0 - tail])
    return float(low), float(high)


def paired_test(differences: np.ndarray) -> float:
    """Two-sided p-value that the mean of paired per-group differences is zero.

    A t statistic on the group differences, read against the normal
    distribution (the arena has hundreds of groups, where t and normal agree);
    identical players give p = 1.
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.size < 2:
        return 1.0
    sd = d.std(ddof=1)
    if sd == 0.0:
        return 1.0 if d.mean() == 0.0 else 0.0
    z = d.mean() / (sd / math.sqrt(d.size))
    return float(math.erfc(abs(z) / math.sqrt(2.0)))


def ratio_difference_test(rewards_a: np.ndarray, deals_a: np.ndarray, rewards_b: np.ndarray,
                          deals_b: np.ndarray) -> float:
    """Two-sided p-value that (mean per deal of A) - (mean per deal of B) is zero, groups paired.

    The difference of two ratios has no per-group terms to t-test directly when groups hold
    different numbers of deals (whole matches); the delta method linearises it: group ``g``
    contributes ``(a_g - mean_a * n_a,g) / mean(n_a) - (b_g - mean_b * n_b,g) / mean(n_b)``,
    whose spread gives the standard error of the difference the bootstrap intervals bracket.
    With one deal per group (or a constant number) this is ``paired_test`` on the per-deal
    differences, so single-deal variants keep their p-values.
    """
    rewards_a, deals_a = _as_arrays(rewards_a, deals_a)
    rewards_b, deals_b = _as_arrays(rewards_b, deals_b)
    if rewards_a.shape != rewards_b.shape:
        raise ValueError("paired groups: A and B need results for the same groups")
    if rewards_a.size < 2:
        return 1.0
    mean_a, mean_b = rewards_a.sum() / deals_a.sum(), rewards_b.sum() / deals_b.sum()
    influence = ((rewards_a - mean_a * deals_a) / deals_a.mean()
                 - (rewards_b - mean_b * deals_b) / deals_b.mean())
    spread = influence.std(ddof=1)
    difference = mean_a - mean_b
    # Rounding's spread, relative to the rewards' size (so that rescaling every reward changes nothing)
    scale = max(np.abs(rewards_a).max() / deals_a.mean(), np.abs(rewards_b).max() / deals_b.mean())
    if spread <= 1e-12 * scale:
        return 1.0 if abs(difference) <= 1e-12 * scale else 0.0
    z = difference / (spread / math.sqrt(rewards_a.size))
    return float(math.erfc(abs(z) / math.sqrt(2.0)))


def interquartile_mean(scores: np.ndarray) -> float:
    """The mean of the middle half of ``scores`` (a quarter cut from each end, as
    ``scipy.stats.trim_mean(scores, 0.25)`` and rliable's IQM): robust to a few
    outlying groups, less noisy than the median."""
    x = np.sort(np.asarray(scores, dtype=np.float64).ravel())
    if x.size == 0:
        raise ValueError("no scores to summarise")
    cut = int(0.25 * x.size)
    return float(x[cut:x.size - cut].mean())


def stratified_bootstrap(strata: list[np.ndarray], *, weights: list[np.ndarray] | None = None, level: float = 0.95,
                         samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> dict[str, float | list[float]]:
    """Mean and IQM of scores pooled over ``strata`` (one array per training seed, a
    score per duplicate group), with percentile intervals from a *stratified*
    bootstrap: each seed's groups are resampled within that seed, so every
    resample keeps every seed (Agarwal et al. 2021, rliable's StratifiedBootstrap).

    ``weights`` (one array per stratum, e.g. the deals of each group) make the mean the
    weighted mean, so that with groups of unequal size it is the per-deal figure of the
    pooled deals (a ratio estimate, resampled as one); the IQM stays over group scores."""
    arrays = [np.asarray(s, dtype=np.float64).ravel() for s in strata]
    if not arrays or any(a.size == 0 for a in arrays):
        raise ValueError(f"every stratum needs at least one score, got sizes {[a.size for a in arrays]}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")
    if weights is None:
        weighing = [np.ones_like(a) for a in arrays]
    else:
        weighing = [np.asarray(w, dtype=np.float64).ravel() for w in weights]
        if [w.size for w in weighing] != [a.size for a in arrays]:
            raise ValueError(f"weights need one value per score: sizes {[w.size for w in weighing]} "
                             f"against {[a.size for a in arrays]}")
        if any((w <= 0).any() or not np.isfinite(w).all() for w in weighing):
            raise ValueError("weights must be positive and finite")
    rng = np.random.default_rng(seed)
    means, iqms = np.empty(samples), np.empty(samples)
    chunk = 50
    for start in range(0, samples, chunk):
        n = min(chunk, samples - start)
        picks = [rng.integers(0, a.size, size=(n, a.size)) for a in arrays]
        pooled = np.concatenate([a[k] for a, k in zip(arrays, picks, strict=True)], axis=1)
        pooled_weights = np.concatenate([w[k] for w, k in zip(weighing, picks, strict=True)], axis=1)
        means[start:start + n] = (pooled * pooled_weights).sum(axis=1) / pooled_weights.sum(axis=1)
        pooled.sort(axis=1)
        cut = int(0.25 * pooled.shape[1])
        iqms[start:start + n] = pooled[:, cut:pooled.shape[1] - cut].mean(axis=1)
    tail = (1.0 - level) / 2.0
    everything, every_weight = np.concatenate(arrays), np.concatenate(weighing)
    return {"mean": float((everything * every_weight).sum() / every_weight.sum()),
            "mean_ci": [float(v) for v in np.quantile(means, [tail, 1 - tail])],
            "iqm": interquartile_mean(everything),
            "iqm_ci": [float(v) for v in np.quantile(iqms, [tail, 1 - tail])], "level": level,
            "scores": int(everything.size), "strata": len(arrays), "weighted": weights is not None}


def summarise(records: list[list[tuple[list[int], list[float], int]]], unique: list[str], seed: int = 0) -> dict:
    """Per-agent means with bootstrap CIs, win rates and pairwise tests.

    ``records[g]`` lists the games of group ``g`` as (agent index by seat,
    returns by seat, counted deals); ``unique`` names the agents.
    """
    index = {name: i for i, name in enumerate(unique)}
    k, g_count = len(unique), len(records)
    reward = np.zeros((g_count, k))
    seat_deals = np.zeros((g_count, k))
    seat_games = np.zeros((g_count, k))
    wins = np.zeros((g_count, k))
    for g, games in enumerate(records):
        for seating, returns, counted in games:
            best = max(returns)
            winners = [s for s, value in enumerate(returns) if value == best]
            for seat, a in enumerate(seating):
                reward[g, a] += returns[seat]
                seat_deals[g, a] += counted
                seat_games[g, a] += 1
                if seat in winners:
                    wins[g, a] += 1.0 / len(winners)
    agents = {}
    for name, a in index.items():
        low, high = bootstrap_ci(reward[:, a], seat_deals[:, a], seed=seed)
        agents[name] = {
            "mean": ratio_mean(reward[:, a], seat_deals[:, a]), "ci95": [low, high],
            "win_rate": float(wins[:, a].sum() / seat_games[:, a].sum()),
            "deals": int(seat_deals[:, a].sum()), "games": int(seat_games[:, a].sum()),
            "mean_per_game": float(reward[:, a].sum() / seat_games[:, a].sum()),
            "group_means": (reward[:, a] / seat_deals[:, a]).tolist(),  # per duplicate group, per deal
            "group_deals": seat_deals[:, a].tolist(),  # the deals it played in each group
        }
    per_deal = reward / seat_deals
    pairwise = []
    for i in range(k):
        for j in range(i + 1, k):
            diff = per_deal[:, i] - per_deal[:, j]
            low, high = bootstrap_difference_ci(reward[:, i], seat_deals[:, i], reward[:, j],
                                                      seat_deals[:, j], seed=seed)
            low99, high99 = bootstrap_difference_ci(reward[:, i], seat_deals[:, i], reward[:, j],
                                                          seat_deals[:, j], level=0.99, seed=seed)
            difference = ratio_mean(reward[:, i], seat_deals[:, i]) - ratio_mean(
                reward[:, j], seat_deals[:, j])
            pairwise.append({
                "a": unique[i], "b": unique[j], "mean_difference": difference, "ci95": [low, high],
                "ci99": [low99, high99],
                "a_beats_b": float(((diff > 0) + 0.5 * (diff == 0)).mean()),
                "p_value": ratio_difference_test(reward[:, i], seat_deals[:, i], reward[:, j], seat_deals[:, j]),
            })
    return {"agents": agents, "pairwise": pairwise}
