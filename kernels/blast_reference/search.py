"""The strength reference for Biathlon Blast: determinized flat Monte Carlo over the card to play.

A REFERENCE seat chooses its card at each round start by perfect-information Monte Carlo over
sampled determinizations (PIMC; Long, Sturtevant, Buro & Furtak, "Understanding the Success of
Perfect Information Monte Carlo Sampling in Game Tree Search", AAAI 2010; the determinization of
Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012, with a
single decision level, so that the information-set tree is the root's candidate cards). Every
rollout

1. copies the race and re-samples everything this racer cannot see, consistently with what it can:
   the Motivation cards the other racers drew face down and have not played (SEAT_SECRET) and the
   order of the deck are dealt again from the pool of cards it has not seen; its own hand, every
   discard pile (face up), removed cards, positions, pulses, tokens, dice, wind and the face-up
   Motivation cards are public and kept;
2. draws its chance (dice to come) from a stream of the racer's own, hashed from the player
   stream, the round, the seat and the rollout number, never from the race's chance stream, which
   carries the deck order and the dice to come;
3. plays the candidate card, lets every other racer choose its card for this round by the
   heuristic on the sampled state (the choice is simultaneous: nobody's real choice is seen), and
   plays on with every racer, this one included, on this racer's own heuristic weights: it models
   its rivals as players like itself, since a player at the table does not know the others'
   styles;
4. ends at the race's end or after P_DEPTH rounds, and scores won + P_PLACE_CREDIT * (racers -
   place) / (racers - 1), or at a cut-off (racers - place) / (racers - 1), places by distance to
   the finish.

Rollout i of every candidate uses the same determinization and chance (common random numbers);
the best mean wins, ties to the earlier card in the hand. The rest of the turn (action, wax,
where to stop, range, bullets, wind, Motivation) is the heuristic's, reading only public state
and its own hand; its Motivation choice values the blind draw over every card it has not seen.

The race loop here also serves LOOKAHEAD seats, with the same rollouts as
kernels.blast.engine.lookahead_card_nb (full information, rivals on their own weights), so that
reference and look-ahead meet in one race; one rollout loop serves both (compile time).
"""
import numpy as np

from kernels.jit import entry, inline, splice
from kernels.rng import below_nb, mix64_nb

from kernels.blast.borrowed import borrow_state_nb, borrow_tables_nb
from kernels.blast.consts import MAX_RACERS
from kernels.blast.engine import (
    check_capacity_nb, commit_card_nb, copy_state_nb, open_round_nb, play_turns_nb, rank_nb,
    same_card_nb, setup_nb, write_results_nb,
)
from kernels.blast.events import STATUS_RACING, STATUS_WON
from kernels.blast.players import (
    HEURISTIC, LOOKAHEAD, P_DEPTH, P_PLACE_CREDIT, P_ROLLOUTS, REFERENCE, card_worth_nb, choose_card_nb,
)
from kernels.blast.state import (
    G_MN, G_MTOP, G_N, G_ROUND, G_WINNER, MAX_HAND, MAX_MOTIVATION, S_PLACE, SEAT_CHOSEN, SEAT_HAND_N,
    SEAT_PLAYER, SEAT_SECRET, SEAT_STATUS, W_LOOKAHEAD, W_RED,
)

KEY = np.uint64(0x9E3779B97F4A7C15)
KEY2 = np.uint64(0x632BE59BD9B4E019)
KEY_ROUND = np.uint64(0xD1B54A32D192ED03)
KEY_SEAT = np.uint64(0x8CB92BA72F3D8DD7)


@inline
def reveal_nb(st):
    """The cards just chosen are revealed: each clears one of its racer's secret blind cards with
    the same id, if it has one (copies that play alike are indistinguishable to everyone)."""
    for o in range(st.g[G_N]):
        bits = st.seat[SEAT_SECRET, o]
        c = st.seat[SEAT_CHOSEN, o]
        if bits == 0 or c < 0:
            continue
        for i in range(st.g[G_MTOP]):
            if (bits >> np.int64(i)) & 1 == 1 and st.mdeck[i] == c:
                st.seat[SEAT_SECRET, o] = bits & ~(np.int64(1) << np.int64(i))
                break


@splice
def determinize_nb(tb, ro, s, pool, where):
    """Deal again, in the copy `ro`, what seat s cannot see: the other racers' secret blind cards and
    the deck below its top, shuffled together with ro's chance stream. pool, where: int64 work
    arrays of MAX_MOTIVATION (cards; for a hand card, seat * MAX_HAND + its index in the hand)."""
    chance = ro.rng[0:1]
    top = ro.g[G_MTOP]
    k = 0
    for o in range(ro.g[G_N]):
        bits = ro.seat[SEAT_SECRET, o]
        if o == s or bits == 0:
            continue
        taken = np.int64(0)                 # hand places already matched to a secret card
        for i in range(top):
            if (bits >> np.int64(i)) & 1 == 0:
                continue
            c = ro.mdeck[i]
            for h in range(ro.seat[SEAT_HAND_N, o]):
                if ro.hand[o, h] == c and (taken >> np.int64(h)) & 1 == 0:
                    taken |= np.int64(1) << np.int64(h)
                    pool[k] = c
                    where[k] = o * MAX_HAND + h
                    k += 1
                    break
    n_hidden = k
    for i in range(top, ro.g[G_MN]):
        pool[k] = ro.mdeck[i]
        k += 1
    # in card order first: the deal then depends only on which cards are unseen, which the racer
    # knows, not on where they really are
    for i in range(1, k):
        c = pool[i]
        j = i - 1
        while j >= 0 and pool[j] > c:
            pool[j + 1] = pool[j]
            j -= 1
        pool[j + 1] = c
    for i in range(k - 1, 0, -1):
        j = below_nb(chance, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    for j in range(n_hidden):
        o = where[j] // MAX_HAND
        ro.hand[o, where[j] % MAX_HAND] = pool[j]
    # the secret bits keep their places; the cards at those places are the ones dealt
    j = 0
    for o in range(ro.g[G_N]):
        bits = ro.seat[SEAT_SECRET, o]
        if o == s or bits == 0:
            continue
        for i in range(top):
            if (bits >> np.int64(i)) & 1 == 1 and j < n_hidden and where[j] // MAX_HAND == o:
                ro.mdeck[i] = pool[j]
                ro.mworth[i] = card_worth_nb(tb, pool[j])
                j += 1
    for i in range(top, ro.g[G_MN]):
        ro.mdeck[i] = pool[n_hidden + i - top]
        ro.mworth[i] = card_worth_nb(tb, ro.mdeck[i])


@splice
def begin_rollout_nb(tb, st, ro, s, r, reference, pool, where):
    """Set up rollout r of seat s's decision in `ro` (a copy of st)."""
    copy_state_nb(st, ro)
    n = st.g[G_N]
    if reference:
        # the racer's own randomness: the player stream (never the chance stream), round, seat
        key = st.rng[1] ^ (np.uint64(st.g[G_ROUND]) * KEY_ROUND) ^ (np.uint64(s + 1) * KEY_SEAT)
        key = mix64_nb(key + np.uint64(r + 1) * KEY)
        ro.rng[0] = mix64_nb(key)
        ro.rng[1] = mix64_nb(key ^ KEY2)
        determinize_nb(tb, ro, s, pool, where)
        for o in range(n):
            ro.seat[SEAT_PLAYER, o] = HEURISTIC
            for j in range(st.params.shape[1]):
                ro.params[o, j] = st.params[s, j]
    else:
        # exactly kernels.blast.engine.lookahead_card_nb's rollout
        for o in range(n):
            if ro.seat[SEAT_PLAYER, o] == LOOKAHEAD or ro.seat[SEAT_PLAYER, o] == REFERENCE:
                ro.seat[SEAT_PLAYER, o] = HEURISTIC
        key = np.uint64(r + 1) * KEY + np.uint64(s)
        ro.rng[0] = mix64_nb(st.rng[0] ^ key)
        ro.rng[1] = mix64_nb(st.rng[1] ^ (key + KEY2))
        chance = ro.rng[0:1]
        top = ro.g[G_MTOP]
        for i in range(ro.g[G_MN] - 1, top, -1):
            j = top + below_nb(chance, i - top + 1)
            t = ro.mdeck[i]
            ro.mdeck[i] = ro.mdeck[j]
            ro.mdeck[j] = t
            w = ro.mworth[i]
            ro.mworth[i] = ro.mworth[j]
            ro.mworth[j] = w


@splice
def search_card_nb(tb, trail, st, s, ro):
    """A LOOKAHEAD or REFERENCE seat's card, by flat Monte Carlo over the distinct cards in its hand
    (module docstring)."""
    n_hand = st.seat[SEAT_HAND_N, s]
    budget = np.int64(st.params[s, P_ROLLOUTS])
    reference = st.seat[SEAT_PLAYER, s] == REFERENCE
    depth = np.int64(st.params[s, P_DEPTH]) if reference else 0
    cand = np.empty(n_hand, np.int64)
    k = 0
    for i in range(n_hand):
        c = st.hand[s, i]
        dup = False
        for j in range(k):
            if same_card_nb(tb, cand[j], c):
                dup = True
                break
        if not dup:
            cand[k] = c
            k += 1
    if budget <= 0 or k <= 1:
        return choose_card_nb(st, tb, trail, s)
    n = st.g[G_N]
    credit = st.params[s, P_PLACE_CREDIT] / max(n - 1, 1)
    red = ro.work[W_RED:W_RED + MAX_RACERS]
    pool = np.empty(MAX_MOTIVATION, np.int64)
    where = np.empty(MAX_MOTIVATION, np.int64)
    best = cand[0]
    best_v = -1.0
    means = np.empty(k)
    for ci in range(k):
        total = 0.0
        for r in range(budget):
            begin_rollout_nb(tb, st, ro, s, r, reference, pool, where)
            commit_card_nb(ro, s, cand[ci])
            for o in range(n):
                if o != s and ro.seat[SEAT_STATUS, o] == STATUS_RACING:
                    commit_card_nb(ro, o, choose_card_nb(ro, tb, trail, o))
            # the rest of the race, or `depth` rounds of it
            chosen = True
            rounds = 0
            ended = False
            while True:
                if not chosen:
                    if depth > 0 and rounds >= depth:
                        break
                    if not open_round_nb(tb, trail, ro, red):
                        ended = True
                        break
                    for o in range(n):
                        if ro.seat[SEAT_STATUS, o] == STATUS_RACING:
                            commit_card_nb(ro, o, choose_card_nb(ro, tb, trail, o))
                chosen = False
                rounds += 1
                if play_turns_nb(tb, trail, ro, red):
                    ended = True
                    break
            rank_nb(tb, trail, ro)
            if ro.seat[SEAT_STATUS, s] == STATUS_WON:
                total += 1.0
            if ended or ro.g[G_WINNER] >= 0:
                total += credit * (n - ro.stats[s, S_PLACE])
            else:
                total += (n - ro.stats[s, S_PLACE]) / max(n - 1, 1)
        v = total / budget
        means[ci] = v
        if v > best_v:
            best_v = v
            best = cand[ci]
    # each candidate's mean score, left in `ro` (the rollouts' board, scratch once the search is
    # over) for reading back after a search of one seat (benchmarks/blast_distill_collect.py)
    ro.mworth[:k] = means[:k]
    return best


@splice
def search_rounds_nb(tb, trail, st, red_usable, ro, stop_round):
    """The race's rounds: LOOKAHEAD and REFERENCE seats choose their cards first, each by its
    rollouts on the round-start state (the choice is simultaneous), then everyone else; the cards
    are then revealed. With stop_round > 0, returns once the search seats have chosen in that
    round (their cards in st.work[W_LOOKAHEAD:], nothing committed); with stop_round < 0, st is
    such a round-start state: the search seats choose again on it, and it returns (tests)."""
    n = st.g[G_N]
    chosen = st.work[W_LOOKAHEAD:W_LOOKAHEAD + MAX_RACERS]
    resume = stop_round < 0
    while resume or open_round_nb(tb, trail, st, red_usable):
        for s in range(n):
            chosen[s] = -1
            kind = st.seat[SEAT_PLAYER, s]
            if st.seat[SEAT_STATUS, s] == STATUS_RACING and (kind == LOOKAHEAD or kind == REFERENCE):
                chosen[s] = search_card_nb(tb, trail, st, s, ro)
        if resume or st.g[G_ROUND] == stop_round:
            return
        for s in range(n):
            if st.seat[SEAT_STATUS, s] == STATUS_RACING:
                c = chosen[s] if chosen[s] >= 0 else choose_card_nb(st, tb, trail, s)
                commit_card_nb(st, s, c)
        reveal_nb(st)
        if play_turns_nb(tb, trail, st, red_usable):
            break
    rank_nb(tb, trail, st)


@entry
def play_races_reference_nb(tb, trails, n_racers, biathletes, colours, players, params, seed, races, st, out,
                            log_cap, ro, stop_round):
    """kernels.blast.engine.play_races_nb for races with LOOKAHEAD or REFERENCE seats; `ro`: a
    second state, the rollouts' board.

    stop_round (tests; one race): > 0 plays the race up to the search seats' card choices of that
    round and stops there, leaving st as it is and their cards in st.work[W_LOOKAHEAD:]; < 0 takes
    st as such a state and makes only those choices again (no set-up, no result rows).
    """
    tb = borrow_tables_nb(tb)
    st = borrow_state_nb(st)
    ro = borrow_state_nb(ro)
    check_capacity_nb(tb, st)
    check_capacity_nb(tb, ro)
    red_usable = st.work[W_RED:W_RED + MAX_RACERS]
    for i in range(races.shape[0]):
        if stop_round >= 0:
            setup_nb(tb, trails[i], n_racers[i], biathletes[i], colours[i], players[i], params[i], seed,
                     races[i], st, log_cap)
            red_usable[:] = 0
        search_rounds_nb(tb, trails[i], st, red_usable, ro, stop_round)
        if stop_round == 0:
            write_results_nb(tb, trails[i], st, races[i], out, i * MAX_RACERS)
