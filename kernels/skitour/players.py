"""Ski Tour players: every decision of a racer goes through `choose_nb`.

The engine lists the legal options of a decision (docs/skitour/event-log.md says which decisions
there are) and scores each with the seat's weight vector (`P_*` below; personas in
sim/data/players/skitour/*.toml are named weight vectors). `choose_nb` then picks:

- a scripted entry for the seat, when a test gave one (an option index; -1 = the player decides;
  a decision with one legal option is taken without reading the script);
- RANDOM: uniformly among the legal options, from the player stream (never the dice stream);
- HEURISTIC: the option with the highest score (the first on ties).

So the random player and every persona see exactly the same legal options.
"""
import numpy as np

from ..jit import inline
from kernels.nolit import unliteral_calls
from ..rng import below_nb
from .consts import PLAYER_RANDOM

# heuristic weights: params[player, P_*]; DEFAULT_PARAMS is the `balanced` persona
P_EXTRA_MIN = 0       # dice an additional column must bring to be worth a stamina
P_RESERVE = 1         # voluntary stamina only while the highest marker value is above this
P_RANGE_EXTRA = 2     # 1: additional columns on shooting turns too; 0: never
P_SIX_SPRINT = 3      # value of a six in the sprint column
P_SIX_BOX = 4         # value of a six in a box, times the column's share of full
P_OCCUPIED = 5        # cost, in rows of progress, of paying a stamina for an occupied space
P_DRAFT_PAY = 6       # most stamina a draft may cost
P_BONUS = 7           # 1: take downhill bonus steps; 0: never
P_WAX_PRICE = 8       # gain (in dice) a token must bring before it is spent
P_SPRINT_MIN = 9      # sprint-column dice that make a sprint icon worth using
P_FLIP = 10           # 1: trade a flip-box six for a token turned face up again
P_GREEN = 11          # value (rows) of ending a move behind a racer on green
P_RED = 12            # cost (rows) of ending a move on red
P_TOKEN = 13          # 13..20: set-up value of each wax icon (WAX_ICON_NAMES order)
P_PLAN = 21           # 1: plan the whole move (the best end, fewest paid entries) and count what a
                      # column or token adds that the turn can use; 0: step by step, greedily
P_ICON_FREE = 22      # value (dice) of a free column, added to the second-fullest column's dice
P_ICON_SHOT = 23      # value (dice) of re-rolling a missed shot
P_ICON_REROLL_ONE = 24  # value (dice) of re-rolling one die of the board
P_ICON_REROLL_ALL = 25  # value (dice) of re-rolling a nearly empty board (half of it, negated,
                        # otherwise)
P_ICON_STAMINA = 26   # value (dice) of a stamina icon's payment (a cost: negative)
P_TIE_RIGHT = 27      # 1: a tie for the highest stamina value pays from the rightmost column;
                      # 0: from the leftmost (the rules leave the tie to the player)
# the strength reference's budget (kind "reference"; kernels/skitour/engine.py, "The strength
# reference"); every other kind ignores them
P_ROLLOUTS = 28       # rollouts per option of a searched decision (0: no search)
P_HORIZON = 29        # rounds a rollout plays, the rest of the current one the first (0: to the end)
P_DECISIONS = 30      # decisions of a turn searched, first to last (the rest: the heuristic's)
P_PLACE_CREDIT = 31   # a rollout scores won + place_credit * share of the rivals behind
P_CONFIDENCE = 32     # standard errors an option's mean gain over the heuristic's pick must exceed
# the stamina pace (issue 27): stamina left at the end of the race is worth nothing, so a racer
# with more stamina than it means to keep for the rows still to go spends it more readily
P_PACE = 33           # stamina per row still to go the racer keeps (ahead of it: the surplus
                      # weights below apply; with pace_share, 0 and 0: never ahead)
P_EXTRA_SURPLUS = 34  # dice an additional column must bring while ahead of the pace (extra_min
                      # otherwise)
P_STAMINA_SURPLUS = 35  # value (dice) of a stamina icon's payment while ahead of the pace
                        # (icon_stamina otherwise)
P_FIRST_WASTE = 36    # cost (dice) of each die of the mandatory column beyond what the turn can
                      # use (taken dice go back to the pool; left on the board they serve later)
P_PACE_SHARE = 37     # more stamina kept per row to go, as a share of the race's own pace (the
                      # stamina at the start over the course's rows)
P_FIRST_HIGH = 38     # the mandatory column among equals: the highest (1) or the lowest (-1)
# the strength reference's rollout score (kind "reference"; every other kind ignores them): a racer
# still racing at a rollout's end is compared by its rows plus what its stamina left is worth
P_STAMINA_ROWS = 39   # rows a stamina point left is worth in that comparison (0: rows alone)
P_STAMINA_CAP = 40    # stamina counted at most this much per row still to go (0: all of it)
P_DRAFT_SPOT = 41     # value (rows) of ending a move directly behind a racer one may draft on
P_LOOK_EXTRA = 42     # 1: on a moving turn an additional column, or a +1 / -1 / sprint icon after
                      # the columns, is worth the rows (and the end space's value) the planned
                      # move gains with it; 0: the moves it adds
P_LOOK_FIRST = 43     # 1: the mandatory column on a moving turn is worth the rows (and the end
                      # space's value) of the planned move it gives; 0: the dice it brings
P_DRAFT_NEXT = 44     # value (rows) added to draft_spot where the racer ahead moves before this
                      # racer's next turn (it has yet to move this round, or did not open it)
P_BONUS_STAY = 45     # value (rows) of stopping a downhill bonus directly behind a racer that
                      # moves before this racer's next turn (0: the bonus steps as before)
# issue 27 item 2, the stamina of the last stretch and of the path (0: as before)
P_LAST_SPEND = 46     # share of the pace no longer kept once past the last range (no shot to come)
P_OCCUPIED_CUT = 47   # share of `occupied` taken off while ahead of the pace (and able to pay an
                      # entry into every other racer's space)
N_PARAMS = 48
PARAM_NAMES = ("extra_min", "reserve", "range_extra", "six_sprint", "six_box", "occupied",
               "draft_pay", "bonus", "wax_price", "sprint_min", "flip", "green", "red",
               "token_reroll_shot", "token_sprint", "token_free_column", "token_reroll_one",
               "token_reroll_all", "token_plus_one", "token_minus_one", "token_stamina",
               "plan", "icon_free_column", "icon_reroll_shot", "icon_reroll_one",
               "icon_reroll_all", "icon_stamina", "tie_right",
               "rollouts", "horizon", "decisions", "place_credit", "confidence",
               "pace", "extra_surplus", "icon_stamina_surplus", "first_waste", "pace_share",
               "first_high", "stamina_rows", "stamina_cap", "draft_spot", "look_extra", "look_first",
               "draft_next", "bonus_stay", "last_spend", "occupied_cut")
# tuned by coordinate search against the sprinter persona (docs in balanced.toml); the icon values
# were constants of the kernel before they became weights
DEFAULT_PARAMS = np.array([2.0, 1.0, 1.0, 1.0, 1.0, 0.8, 3.0, 1.0, 0.0, 2.0, 1.0, 1.5, 1.5,
                           1.5, 3.5, 3.0, 0.8, 1.0, 3.0, -0.5, -1.0,
                           1.0, -0.5, 2.0, 0.2, 1.0, -2.0, 0.0,
                           0.0, 0.0, 0.0, 0.5, 1.0,
                           0.5, 1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.2, 0.5, 1.0, 0.8],
                          np.float64)
assert len(PARAM_NAMES) == N_PARAMS == len(DEFAULT_PARAMS)

MAX_OPTIONS = 40


@inline
def choose_nb(kind, seat, sc, n, prng, dsc, dsi):
    """The decision interface: index of the chosen option among `n` (sc[:n] their scores).

    dsc[seat, i]: scripted decisions of the seat (tests), used in order while dsi[seat] < width;
    -1 hands the decision to the player; an index out of range raises ValueError; below -1, a
    strength reference's rollout marks the decision it searches (returned as it is: the engine's
    `pick_nb` takes the option it codes and switches the rollout's chance to sampled dice).
    """
    if n <= 0:
        raise ValueError("a decision with no legal option")
    if n == 1:
        return 0                  # one legal option is no decision: it takes no scripted entry
    i = dsi[seat]
    if i < dsc.shape[1]:
        dsi[seat] = i + 1
        d = dsc[seat, i]
        if d >= 0:
            if d >= n:
                raise ValueError("scripted decision out of range of the legal options")
            return d
        if d < -1:
            return d              # a rollout's search point (engine.SEARCH_POINT): pick_nb's
    if kind == PLAYER_RANDOM:
        return below_nb(prng, n)
    best = 0
    for k in range(1, n):
        if sc[k] > sc[best]:
            best = k
    return best


unliteral_calls(globals())   # one compiled version per helper, not one per constant (kernels/nolit.py)
