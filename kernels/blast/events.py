"""Event log layout for Biathlon Blast races (documented in docs/event-log.md).

A log is an int16[n_events, N_COLS] array: round, seat, kind, then N_ARGS arguments.
"""

COL_ROUND = 0
COL_SEAT = 1
COL_KIND = 2
COL_ARG = 3     # first argument column: a0 is column 3, a12 is column 15
N_ARGS = 13
N_COLS = COL_ARG + N_ARGS

SETUP_DICE = 1      # a0..: initial faces (chance)
DECK = 2            # a0 index from top, a1 card (chance: the shuffled Motivation deck)
FACE_UP = 3         # a0 slot, a1 card or -1
SETUP_DISCARD = 4   # a0 card (chance)
GRID = 5            # a0 initiative, a1 position, a2 lane
ROUND = 6           # a0 round, a1 wind
PICKUP = 7          # a0 how (PICKUP_*), a1 cards picked up
ELIMINATED = 8      # a0 cause (CAUSE_*)
CHOOSE = 9          # a0 card
TURN = 10           # a0 initiative, a1 on mat
ACTION = 11         # a0 card, a1 action, a2..a6 wax black, yellow, green, blue, white
ROLL = 12           # a0..: new faces (chance)
HITS = 13           # a0 dice hits, a1 wind adjustment, a2 own bullets, a3 coach bullet, a4 final hits
STEPS = 14          # a0 uphill, a1 flat, a2 downhill
MOVE = 15           # a0 from, a1 to, a2 lane, a3 on mat
MOTIVATION = 16     # a0 choice (0/1 slot, MOTIVATION_BLIND), a1 card
BOOST = 17          # a0 colour, a1 strength
PULSE = 18          # a0 before, a1 after, a2 cost, a3 blue reduction, a4 drafting, a5 wind
WIND = 19           # a0 old, a1 new
CARD_END = 20       # a0 card, a1 removed
WIN = 21            # a0 position
STALL = 22          # a0 round cap
PLACE = 23          # a0 place, a1 status
STATE = 24          # a0 pos, a1 lane, a2 on mat, a3 pulse, a4 bullets, a5..a9 wax, a10 hand, a11 discard, a12 status
BOOST_LOST = 25     # a0 colour, a1 strength
WAX = 26            # a0..a4 wax black, yellow, green, blue, white: a Shoot's wax, chosen after the hits

KIND_NAMES = {
    SETUP_DICE: "SETUP_DICE", DECK: "DECK", FACE_UP: "FACE_UP", SETUP_DISCARD: "SETUP_DISCARD",
    GRID: "GRID", ROUND: "ROUND", PICKUP: "PICKUP", ELIMINATED: "ELIMINATED", CHOOSE: "CHOOSE",
    TURN: "TURN", ACTION: "ACTION", ROLL: "ROLL", HITS: "HITS", STEPS: "STEPS", MOVE: "MOVE",
    MOTIVATION: "MOTIVATION", BOOST: "BOOST", PULSE: "PULSE", WIND: "WIND", CARD_END: "CARD_END",
    WIN: "WIN", STALL: "STALL", PLACE: "PLACE", STATE: "STATE", BOOST_LOST: "BOOST_LOST", WAX: "WAX",
}

PICKUP_FREE = 0
PICKUP_BULLET = 1
PICKUP_COACH = 2

CAUSE_NO_CARDS = 1
CAUSE_PULSE = 2

MOTIVATION_BLIND = 2

STATUS_RACING = 0
STATUS_WON = 1
STATUS_ELIMINATED = 2
