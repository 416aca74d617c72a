"""Fit the default's card weights to the reference's choices (a distilled card policy).

    python benchmarks/blast_distill_fit.py DATA.npz [DATA2.npz ...]

DATA: written by benchmarks/blast_distill_collect.py. For every decision, every distinct card in
the racer's hand gets the features the heuristic's card choice scores
(kernels.blast.players.card_features_nb, run here as Python through the kernels' own function),
and a conditional logit (McFadden 1974: P(card) proportional to exp(features . beta), one choice
among the hand's cards) is fitted by maximum likelihood, on and off a shooting mat separately,
with the heuristic's own score as one feature; beta is then divided by that score's coefficient,
so the fitted weights are in the move score's units (the heuristic is beta = (1, 0, ...), or -1
on a mat). Prints the fit, the held-out agreement (last quarter of the decisions) of the
heuristic and of the fitted policy with the reference, and the weights in persona-file form.
"""
import sys

import numpy as np
from scipy.optimize import minimize

from kernels.blast import players as K
from kernels.blast.engine import same_card_nb
from kernels.blast.state import SEAT_HAND_N, SEAT_ON_MAT, new_state
from kernels.jit import python_callable
from sim.blast import load_bundle

FEATURES = K.CARD_FEATURES
#: the move score is clipped for the fit: a finish (1e6) or a pulse over the limit (-1e9) would
#: swamp the other features' scale; the kernel compares the unclipped scores, where such a card wins
#: or loses whatever the other weights say
SCORE_CLIP = 60.0
same_card = python_callable(same_card_nb)
features_nb = python_callable(K.card_features_nb)


def load(paths):
    parts = [dict(np.load(p)) for p in paths]
    return {k: np.concatenate([d[k] for d in parts]) for k in parts[0]}


def design(d, tb):
    """Per decision: the feature matrix of its distinct cards, the index of the reference's card and
    of the heuristic's, and whether it is on a mat."""
    st = new_state(K.N_PARAMS, 0)
    out = np.zeros((64, len(FEATURES)))
    rows = []
    for i in range(len(d["ref"])):
        s = int(d["seat"][i])
        st.seat[:] = d["seat_tab"][i]
        st.g[:] = d["g"][i]
        st.dice[:] = d["dice"][i]
        st.hand[:] = -1
        n = int(st.seat[SEAT_HAND_N, s])
        st.hand[s, :n] = d["hand"][i][:n]
        st.params[s, :] = 0.0
        st.params[s, :d["params"].shape[1]] = d["params"][i]
        features_nb(st, tb, int(d["trail"][i]), s, out)
        hand = st.hand[s, :n]
        keep = [k for k in range(n) if not any(same_card(tb, hand[j], hand[k]) for j in range(k))]
        cls = lambda c: next(m for m, k in enumerate(keep) if same_card(tb, hand[k], c))
        X = out[keep].copy()
        X[:, K.F_SCORE] = np.clip(X[:, K.F_SCORE], -SCORE_CLIP, SCORE_CLIP)
        vals = d["value"][i][:len(keep)] if "value" in d else np.zeros(len(keep))
        rows.append((X, cls(int(d["ref"][i])), cls(int(d["heu"][i])),
                     int(st.seat[SEAT_ON_MAT, s]), vals))
    return rows


def nll(beta, rows, l2):
    total = 0.0
    grad = np.zeros_like(beta)
    for X, y, *_ in rows:
        z = X @ beta
        z -= z.max()
        p = np.exp(z)
        p /= p.sum()
        total -= np.log(p[y] + 1e-300)
        grad -= X[y] - p @ X
    return total + l2 * (beta[1:] ** 2).sum(), grad + 2 * l2 * np.r_[0.0, beta[1:]]


def agree(beta, rows):
    return float(np.mean([np.argmax(X @ beta) == y for X, y, *_ in rows])) if rows else float("nan")


def regret(beta, rows):
    """Mean loss of the card chosen by beta against the best card, in the reference's own rollout
    scores (a share of a race won, place credit included)."""
    return float(np.mean([v.max() - v[np.argmax(X @ beta)] for X, _, _, _, v in rows])) if rows else float("nan")


def policy_loss(beta, rows, l2):
    """Minus the mean rollout score of the softmax policy exp(X beta) (a smooth stand-in for the
    argmax policy's score), with its gradient."""
    total = 0.0
    grad = np.zeros_like(beta)
    for X, _, _, _, v in rows:
        z = X @ beta
        z -= z.max()
        p = np.exp(z)
        p /= p.sum()
        pv = p @ v
        total -= pv
        grad -= (p * (v - pv)) @ X
    n = len(rows)
    return total / n + l2 * (beta ** 2).sum(), grad / n + 2 * l2 * beta


def ols(rows):
    """Rollout scores regressed on the features within each decision (a fixed effect per decision)."""
    A = np.vstack([X - X.mean(0) for X, *_ in rows])
    b = np.concatenate([v - v.mean() for *_, v in rows])
    return np.linalg.lstsq(A, b, rcond=None)[0]


def main():
    b = load_bundle()
    d = load(sys.argv[1:])
    rows = design(d, b.tables)
    n = len(rows)
    cut = int(n * 0.75)
    fitted = {}
    for mat in (0, 1):
        train = [r for r in rows[:cut] if r[3] == mat]
        test = [r for r in rows[cut:] if r[3] == mat]
        sd = np.vstack([X for X, *_ in train]).std(0) + 1e-9
        scaled = [(X / sd, y, h, m, v) for X, y, h, m, v in train]
        heur = np.zeros(len(FEATURES))
        heur[0] = -1.0 if mat else 1.0
        print(f"mat {mat}: {len(train)} train, {len(test)} test decisions")
        same = np.mean([np.argmax(X @ heur) == h for X, _, h, *_ in train + test])
        print(f"  the heuristic's recorded card is the features' argmax in {same:.3f} of them (must be 1)")
        cands = {"heuristic": heur}
        res = minimize(nll, heur * 3, args=(scaled, 1e-3), jac=True, method="L-BFGS-B")
        cands["logit (imitates the choice)"] = res.x / sd
        cands["regression of rollout scores"] = ols(scaled) / sd
        for l2 in (1e-4, 1e-3):
            res = minimize(policy_loss, heur * 3, args=(scaled, l2), jac=True, method="L-BFGS-B")
            cands[f"policy score, l2 {l2:g}"] = res.x / sd
        best = None
        for name, beta in cands.items():
            r_test = regret(beta, test)
            print(f"  {name:32s} held-out regret {r_test:.4f} (train {regret(beta, train):.4f}), "
                  f"agreement {agree(beta, test):.3f}")
            if name != "heuristic" and (best is None or r_test < best[1]):
                best = (name, r_test, beta)
        name, _, beta = best
        unit = abs(beta[0]) if abs(beta[0]) > 1e-9 else 1.0
        print(f"  best: {name}; score coefficient {beta[0]:+.4g}")
        for f, v in zip(FEATURES, beta / unit):
            print(f"    {f:12s} {v:+.3f}")
        fitted[mat] = beta / unit
    print("# persona weights (score coefficient normalised to +-1)")
    for mat in (0, 1):
        for name, v in zip(FEATURES[1:], fitted[mat][1:]):
            print(f"{'mat' if mat else 'card'}_{name} = {v:.3f}")


if __name__ == "__main__":
    main()
