"""Integer constants for Biathlon Blast: every enum the kernels and the compiled bundle use.

Strings never appear in kernel state; each constant's meaning sits beside it. The data layer
(`sim.blast`) translates the words of the data files into these numbers and back.
"""

# --- colours: the six skill colours, which are also the ski colours and the wax colours -------
RED = 0      # accuracy & initiative; red skis: 4 bullets, no wax; bullets are red
BLACK = 1    # uphill skiing; black wax: +1 uphill step
YELLOW = 2   # flat skiing; yellow wax: +1 flat step
GREEN = 3    # downhill skiing; green wax: +1 downhill step
BLUE = 4     # pulse control; blue wax: -1 action cost
WHITE = 5    # wind control; white wax: the action counts as having the wind symbol
N_COLOURS = 6
COLOUR_NAMES = ("red", "black", "yellow", "green", "blue", "white")

# --- terrain of a space; also the index of a step class --------------------------------------
UPHILL = 0    # entered with an uphill step only
FLAT = 1      # entered with a flat or an uphill step
DOWNHILL = 2  # entered with any step
N_TERRAINS = 3
TERRAIN_LETTERS = "UFD"
TERRAIN_NAMES = ("uphill", "flat", "downhill")

# --- headings of spaces and wind directions (where the wind blows *from*) ---------------------
NORTH = 0
EAST = 1
SOUTH = 2
WEST = 3
STILL = 4     # wind only: the Cloud lies on the windstill icon
HEADING_LETTERS = "NESW"
WIND_NAMES = ("N", "E", "S", "W", "still")

# --- values: initiative and step counts are (base, source, mult) triples ----------------------
# value = base + mult * (face of die `source`)   if 0 <= source < number of dice
#       = base + mult * hits                     if source == SRC_HITS
#       = base                                   if source == SRC_NONE
VAL_BASE = 0
VAL_SRC = 1
VAL_MULT = 2
SRC_NONE = -1
SRC_HITS = -2

# --- actions of a card ---------------------------------------------------------------------------
TOP = 0
BOTTOM = 1
# the venue's range actions are stored as a pseudo-card: its action WAIT is Wait, SHOOT is Shoot
WAIT = 0
SHOOT = 1

# --- card kinds ---------------------------------------------------------------------------------
KIND_COMMON = 0
KIND_UNIQUE = 1
KIND_MOTIVATION = 2
KIND_RANGE = 3   # a venue's Wait/Shoot pseudo-card

# --- coach zones --------------------------------------------------------------------------------
NO_COACH = -1    # coach_colour of a space without a zone

# --- rule constants: indices into the compiled `rules` vector -----------------------------------
R_PULSE_LIMIT = 0
R_BAND_LOW = 1            # highest pulse of the low accuracy band
R_BAND_MEDIUM = 2         # highest pulse of the medium accuracy band
R_DRAFTING = 3
R_HEADWIND = 4
R_TAILWIND = 5
R_CROSSWIND_HITS = 6
R_WINDSTILL_HITS = 7
R_MAX_HITS = 8
R_DIE_FACES = 9
R_N_DICE = 10
R_FACE_UP_MOTIVATION = 11
R_ROUND_CAP = 12
R_INITIAL_WIND = 13
R_RANGE_VISITS = 14
R_START_LINE_CROSSINGS = 15
# switches (interpretations, see docs/rules.md)
R_MIXED_LANE_DRAFTING = 16   # 1: single- and double-lane neighbours are in line
R_RANGE_DRAFTING = 17        # 1: racers on the range draft / block tailwind for the next space
R_COACH_BOOST = 18           # COACH_NEXT_TURN or COACH_UNTIL_USABLE
R_MOTIVATION_TO = 19         # MOTIVATION_TO_HAND or MOTIVATION_TO_DISCARD
R_ZERO_STEP_BOOST = 20       # 1: a move of zero steps that ends on a coach zone gets its boost
R_PULSE_FLOOR = 21           # PULSE_FLOOR_TOTAL or PULSE_FLOOR_EACH_PART
R_LAST_RACER_WINS = 22       # 1: the race ends, won, when every other racer is eliminated
N_RULES = 23

COACH_NEXT_TURN = 0
COACH_UNTIL_USABLE = 1
MOTIVATION_TO_HAND = 0
MOTIVATION_TO_DISCARD = 1
PULSE_FLOOR_TOTAL = 0        # the whole change (cost, drafting, wind) is summed, then floored at 0
PULSE_FLOOR_EACH_PART = 1    # cost, then drafting, then wind, each floored at 0 in turn

MAX_RACERS = 6   # six ski colours, six player boards
MIN_RACERS = 2
