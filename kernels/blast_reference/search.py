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
from typing import NamedTuple

import numpy as np

from kernels.borrow import borrow_nb
from kernels.jit import entry_hot, inline, splice
from kernels.rng import below_nb, mix64_nb

from kernels.blast.borrowed import borrow_state_nb, borrow_tables_nb
from kernels.blast.consts import MAX_RACERS
from kernels.blast.engine import (
    check_capacity_nb, commit_card_nb, copy_state_nb, open_round_nb, play_turns_nb, rank_nb,
    same_card_nb, setup_nb, write_results_nb,
)
from kernels.blast.events import STATUS_RACING, STATUS_WON
from kernels.blast.players import (
    HEURISTIC, LOOKAHEAD, P_DEPTH, P_PLACE_CREDIT, P_ROLLOUTS, P_SEARCH_FROM, P_SEARCH_MAT, P_SEARCH_TO, REFERENCE,
    card_worth_nb, choose_card_nb, race_share_nb,
)
from kernels.blast.state import (
    G_LOG_CAP, G_LOG_N, G_MN, G_MTOP, G_N, G_ROUND, G_WINNER, MAX_HAND, MAX_MOTIVATION, S_PLACE,
    SEAT_CHOSEN, SEAT_HAND_N, SEAT_ON_MAT, SEAT_PLAYER, SEAT_SECRET, SEAT_STATUS, W_LOOKAHEAD, W_RED,
)

KEY = np.uint64(0x9E3779B97F4A7C15)
KEY2 = np.uint64(0x632BE59BD9B4E019)
KEY_ROUND = np.uint64(0xD1B54A32D192ED03)
KEY_SEAT = np.uint64(0x8CB92BA72F3D8DD7)


class SearchWork(NamedTuple):
    """A search's work space, passed to the search kernel (an `entry_hot`: it allocates nothing).
    Neither copied nor swapped with the boards: a rollout never searches, so one search uses it at
    a time."""
    cand: np.ndarray        # int64[MAX_HAND]: the searching seat's distinct cards
    means: np.ndarray       # float64[MAX_HAND]: their mean scores
    pool: np.ndarray        # int64[MAX_MOTIVATION]: determinize_nb's cards dealt again
    where: np.ndarray       # int64[MAX_MOTIVATION]: ... and where the hidden ones are


def new_search_work() -> SearchWork:
    return SearchWork(np.zeros(MAX_HAND, np.int64), np.zeros(MAX_HAND), np.zeros(MAX_MOTIVATION, np.int64),
                      np.zeros(MAX_MOTIVATION, np.int64))


@inline
def check_search_work_nb(st, sw):
    """Refuse a work space with less room than the state's hand (cand, means) and Motivation deck
    (pool, where): the kernel indexes it unchecked."""
    if min(sw.cand.shape[0], sw.means.shape[0]) < st.hand.shape[1] \
            or min(sw.pool.shape[0], sw.where.shape[0]) < st.mdeck.shape[0]:
        raise ValueError("the search work space is smaller than the state's MAX_HAND or MAX_MOTIVATION")


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
def begin_rollout_nb(tb, race, board, s, r, reference, pool, where):
    """Set up rollout r of seat s's decision on `board`, a copy of `race` (the race's state at the
    round start)."""
    copy_state_nb(race, board)
    n = race.g[G_N]
    if reference:
        # the racer's own randomness: the player stream (never the chance stream), round, seat
        key = race.rng[1] ^ (np.uint64(race.g[G_ROUND]) * KEY_ROUND) ^ (np.uint64(s + 1) * KEY_SEAT)
        key = mix64_nb(key + np.uint64(r + 1) * KEY)
        board.rng[0] = mix64_nb(key)
        board.rng[1] = mix64_nb(key ^ KEY2)
        determinize_nb(tb, board, s, pool, where)
        for o in range(n):
            board.seat[SEAT_PLAYER, o] = HEURISTIC
            for j in range(race.params.shape[1]):
                board.params[o, j] = race.params[s, j]
    else:
        # exactly kernels.blast.engine.lookahead_card_nb's rollout
        for o in range(n):
            if board.seat[SEAT_PLAYER, o] == LOOKAHEAD or board.seat[SEAT_PLAYER, o] == REFERENCE:
                board.seat[SEAT_PLAYER, o] = HEURISTIC
        key = np.uint64(r + 1) * KEY + np.uint64(s)
        board.rng[0] = mix64_nb(race.rng[0] ^ key)
        board.rng[1] = mix64_nb(race.rng[1] ^ (key + KEY2))
        chance = board.rng[0:1]
        top = board.g[G_MTOP]
        for i in range(board.g[G_MN] - 1, top, -1):
            j = top + below_nb(chance, i - top + 1)
            t = board.mdeck[i]
            board.mdeck[i] = board.mdeck[j]
            board.mdeck[j] = t
            w = board.mworth[i]
            board.mworth[i] = board.mworth[j]
            board.mworth[j] = w


@inline
def candidates_nb(tb, st, s, cand):
    """The distinct cards in seat s's hand (copies that play alike count once), into cand; their
    number."""
    k = 0
    for i in range(st.seat[SEAT_HAND_N, s]):
        c = st.hand[s, i]
        dup = False
        for j in range(k):
            if same_card_nb(tb, cand[j], c):
                dup = True
                break
        if not dup:
            cand[k] = c
            k += 1
    return k


@inline
def swap_work_nb(a, b):
    """Swap the contents of a's and b's player work space (scratch, cand, masks: not copied by
    copy_state_nb; each board keeps its own)."""
    for i in range(a.scratch.shape[0]):
        t = a.scratch[i]
        a.scratch[i] = b.scratch[i]
        b.scratch[i] = t
    for i in range(a.cand.shape[0]):
        for j in range(a.cand.shape[1]):
            t = a.cand[i, j]
            a.cand[i, j] = b.cand[i, j]
            b.cand[i, j] = t
    for i in range(a.masks.shape[0]):
        t = a.masks[i]
        a.masks[i] = b.masks[i]
        b.masks[i] = t


@splice
def search_rounds_nb(tb, trail, st, red_usable, ro, sw, stop_round):
    """The race's rounds: LOOKAHEAD and REFERENCE seats choose their cards first, each by flat Monte
    Carlo over the distinct cards in its hand (module docstring) on the round-start state (the
    choice is simultaneous), then everyone else; the cards are then revealed. With stop_round > 0,
    returns once the search seats have chosen in that round (their cards in st.work[W_LOOKAHEAD:],
    nothing committed); with stop_round < 0, st is such a round-start state: the search seats
    choose again on it, and it returns (tests).

    One loop plays the race's rounds and every rollout's, so that the turn, the round start, the
    card choice and the ranking are each compiled once (docs/studies.md, "Compile time"). Each
    pass opens a round (unless a rollout has just been set up), chooses and commits its cards and
    plays its turns. The rollouts are played in st's own arrays: a search sets the race aside in ro
    (each rollout starts from that copy) and puts it back with its card, before the next search
    seat's turn to search. (With the board a variable, st or ro, the look-ahead races ran about a
    tenth slower.)"""
    n = st.g[G_N]
    chosen = st.work[W_LOOKAHEAD:W_LOOKAHEAD + MAX_RACERS]
    cand = sw.cand
    means = sw.means
    pool = sw.pool
    where = sw.where
    resume = stop_round < 0
    rollout = False         # False: st holds the race; True: a rollout (the race set aside in ro)
    opening = not resume    # the race's next round is still to be opened
    seat = 0                # the race's round: the next seat to search, if it is a search seat
    starting = False        # a rollout is to be set up (rollout r of candidate ci of seat s)
    first = False           # a rollout's first round: its cards are the searched one's and the others'
    s = 0
    k = 0
    ci = 0
    r = 0
    budget = 0
    depth = 0
    reference = False
    credit = 0.0
    total = 0.0
    best = 0
    best_v = -1.0
    rounds = 0
    log_cap = 0
    log_n = 0
    while True:
        if starting:
            begin_rollout_nb(tb, ro, st, s, r, reference, pool, where)
            starting = False
            first = True
            rounds = 0
        over = False        # the race, or the rollout, is over
        ended = False       # ... at the race's end (not cut off after `depth` rounds)
        if rollout and not first and depth > 0 and rounds >= depth:
            over = True
        elif (rollout and not first) or opening:
            if not open_round_nb(tb, trail, st, red_usable):
                over = True
                ended = True
            elif not rollout:
                opening = False
                seat = 0
        if not rollout and not over:
            # the search seats choose, in seat order; a search leaves for its rollouts and comes
            # back here with its card
            while seat < n:
                s = np.int64(seat)      # never the literal 0: helpers would compile for that type too
                seat += 1
                chosen[s] = -1
                kind = st.seat[SEAT_PLAYER, s]
                if st.seat[SEAT_STATUS, s] != STATUS_RACING or (kind != LOOKAHEAD and kind != REFERENCE):
                    continue
                budget = np.int64(st.params[s, P_ROLLOUTS])
                reference = kind == REFERENCE
                depth = np.int64(st.params[s, P_DEPTH]) if reference else 0
                k = candidates_nb(tb, st, s, cand)
                if reference and budget > 0 and k > 1:
                    share = race_share_nb(st, tb, trail, s)
                    if share < st.params[s, P_SEARCH_FROM] or share >= st.params[s, P_SEARCH_TO]:
                        budget = 0
                    gate = np.int64(st.params[s, P_SEARCH_MAT])
                    if gate != 0 and (st.seat[SEAT_ON_MAT, s] == 1) != (gate == 2):
                        budget = 0
                if budget <= 0 or k <= 1:
                    chosen[s] = choose_card_nb(st, tb, trail, s)
                    continue
                credit = st.params[s, P_PLACE_CREDIT] / max(n - 1, 1)
                best = cand[0]
                best_v = -1.0
                ci = 0
                r = 0
                total = 0.0
                # the race set aside in ro (its log untouched: rollouts log nothing)
                log_cap = st.g[G_LOG_CAP]
                log_n = st.g[G_LOG_N]
                copy_state_nb(st, ro)
                swap_work_nb(st, ro)
                rollout = True
                starting = True
                break
            if rollout:
                continue
            if resume or st.g[G_ROUND] == stop_round:
                return
        if not over:
            # the round's cards: in a rollout's first round, the candidate for the searching seat
            # and the heuristic's for the others (the choice is simultaneous); later, each seat's
            # own player (no look-ahead in a rollout); in the race, the search seats' cards
            if first:
                commit_card_nb(st, s, cand[ci])
            for o in range(n):
                if st.seat[SEAT_STATUS, o] != STATUS_RACING or (first and o == s):
                    continue
                c = -1 if rollout else chosen[o]
                if c < 0:
                    c = choose_card_nb(st, tb, trail, o)
                commit_card_nb(st, o, c)
            if not rollout:
                reveal_nb(st)
            first = False
            rounds += 1
            if play_turns_nb(tb, trail, st, red_usable):
                over = True
                ended = True
            elif not rollout:
                opening = True
        if not over:
            continue
        rank_nb(tb, trail, st)
        if not rollout:
            break
        # the rollout's score; then the next rollout, the next candidate, or the search's card
        if st.seat[SEAT_STATUS, s] == STATUS_WON:
            total += 1.0
        if ended or st.g[G_WINNER] >= 0:
            total += credit * (n - st.stats[s, S_PLACE])
        else:
            total += (n - st.stats[s, S_PLACE]) / max(n - 1, 1)
        r += 1
        if r >= budget:
            v = total / budget
            means[ci] = v
            if v > best_v:
                best_v = v
                best = cand[ci]
            ci += 1
            r = 0
            total = 0.0
            if ci >= k:
                # the race back in st, with the search's card
                copy_state_nb(ro, st)
                st.g[G_LOG_CAP] = log_cap
                st.g[G_LOG_N] = log_n
                swap_work_nb(st, ro)
                chosen[s] = best
                # each candidate's mean score, left in ro (scratch once the search is over) for
                # reading back after a search of one seat (benchmarks/blast_distill_collect.py)
                for i in range(k):
                    ro.mworth[i] = means[i]
                rollout = False
                continue
        starting = True


@entry_hot
def play_races_reference_nb(tb, trails, n_racers, biathletes, colours, players, params, seed, races, st, out,
                            visits, log_cap, ro, sw, stop_round):
    """kernels.blast.engine.play_races_nb for races with LOOKAHEAD or REFERENCE seats; `ro`: a
    second state, the rollouts' board; `sw`: the searches' work space (new_search_work()).

    stop_round (tests; one race): > 0 plays the race up to the search seats' card choices of that
    round and stops there, leaving st as it is and their cards in st.work[W_LOOKAHEAD:]; < 0 takes
    st as such a state and makes only those choices again (no set-up, no result rows).
    """
    tb = borrow_tables_nb(tb)
    st = borrow_state_nb(st)
    ro = borrow_state_nb(ro)
    sw = SearchWork(borrow_nb(sw.cand), borrow_nb(sw.means), borrow_nb(sw.pool), borrow_nb(sw.where))
    check_capacity_nb(tb, st)
    check_capacity_nb(tb, ro)
    check_search_work_nb(st, sw)
    red_usable = st.work[W_RED:W_RED + MAX_RACERS]
    for i in range(races.shape[0]):
        if stop_round >= 0:
            setup_nb(tb, trails[i], n_racers[i], biathletes[i], colours[i], players[i], params[i], seed,
                     races[i], st, log_cap)
            red_usable[:] = 0
        search_rounds_nb(tb, trails[i], st, red_usable, ro, sw, stop_round)
        if stop_round == 0:
            write_results_nb(tb, trails[i], st, races[i], out, visits, i * MAX_RACERS)
