"""Integer constants for Ski Tour: Biathlon: every enum the kernels and the compiled bundle use.

Strings never appear in kernel state; each constant's meaning sits beside it. The data layer
(`sim.skitour`) translates the words of the data files into these numbers and back. Section
numbers (§) refer to docs/skitour/rules.md.
"""

# --- a nation's player board: the dice on it, one packed int array per racer -----------------
# board[B_COL + c] holds the number of dice in dice column c+1 (c = 0..3: columns 1-4). Only the
# count matters to every rule: the value of a die decides where it is placed (§3), never what it
# is worth when taken (§4.1).
B_COL = 0            # board[0..3]: dice in columns 1, 2, 3, 4
B_SPRINT = 4         # dice (sixes) in the sprint column
B_STAR = 5           # board[5..8]: 1 if the star box above column 1..4 holds a six, else 0
B_AVAILABLE = 9      # available race dice: the racer's dice not on the board
N_BOARD = 10
N_COLUMNS = 4        # the numbered dice columns 1-4

# --- where a rolled six goes (a decision, §3 step 4) ------------------------------------------
SIX_SPRINT = 4       # the sprint column; 0..3 = the star box above column 1..4

# --- a column picked in the race phase (§4.1): 0..3 = column 1..4, or the sprint column --------
PICK_SPRINT = 4

# --- star boxes: what the box above a column does (§9) -----------------------------------------
BOX_STAR = 0         # a full column's six is added to the dice taken
BOX_FLIP = 1         # Italy, United Kingdom: a full column's six is taken as a die OR traded for
                     # flipping back one innermost used wax token
BOX_NAMES = ("star", "flip")

# --- what taking a column did with its box's six ------------------------------------------------
SIX_NONE = 0         # the box was empty
SIX_TAKEN = 1        # the column was full: the six is one of the dice taken
SIX_RETURNED = 2     # the column was not full: the six went back to the available dice
SIX_FLIPPED = 3      # a flip box of a full column: the six went back and a used token flips back

# --- stamina payments (§4.2) ----------------------------------------------------------------------
PAY_COLLAPSE = -1    # a forced payment with every marker on its lowest (blue) slot: removed
PAY_REFUSED = -2     # a voluntary payment that cannot be made (every eligible marker on blue):
                     # the action that needed it is not allowed
PAY_AUTO = -1        # `choice` argument: let the rule pick the column

# --- results of the race-phase column step (§4.1) ----------------------------------------------
TAKE_OK = 0
TAKE_ILLEGAL_FIRST = 1   # the mandatory column is empty while another 1-4 column holds dice
TAKE_ILLEGAL_EXTRA = 2   # an additional column is empty, repeated, or the first column again
TAKE_REFUSED = 3         # a stamina payment could not be made; nothing was taken
                         # (additional columns are voluntary, so taking them never collapses)

# --- spaces of the course (§5) --------------------------------------------------------------------
SPACE_NONE = 0       # no space at this lane position of the row (off the track)
SPACE_PLAIN = 1      # an ordinary lane space
SPACE_GREEN = 2      # downhill: ending a move here directly behind a racer gives the bonus move
SPACE_RED = 3        # uphill: starting a move here costs one move
SPACE_WHITE = 4      # white area: the only kind of space that may be entered diagonally
SPACE_SHOOT = 5      # shooting space of a range: entering it ends the move
SPACE_LETTERS = "-.GRWS"   # how each kind is typed in tiles.toml, by code
SPACE_NAMES = ("none", "plain", "green", "red", "white", "shoot")

# --- kinds of tile sides ----------------------------------------------------------------------------
SIDE_COURSE = 0
SIDE_START = 1       # the course begins here; the start line lies before its first row
SIDE_GOAL = 2        # the course ends here; the finish line lies after its last row
SIDE_RANGE = 3       # holds one row of shooting spaces and a penalty lane
SIDE_KINDS = ("course", "start", "goal", "range")

# --- wax icons (§10): bit flags of a token's actions --------------------------------------------------
WAX_REROLL_SHOT = 1      # reroll one shooting die of this turn
WAX_SPRINT = 2           # sprint this turn, plus moves equal to the sprint column's dice (kept)
WAX_FREE_COLUMN = 4      # one additional column this turn without paying stamina
WAX_REROLL_ONE = 8       # reroll one die from the board and place it as in the preparation phase
WAX_REROLL_ALL = 16      # reroll every die on the board and place them as in the preparation phase
WAX_PLUS_ONE = 32        # +1 to the number of dice taken (not a die: fills no column)
WAX_MINUS_ONE = 64       # -1 from the number of dice taken (not below 0)
WAX_STAMINA = 128        # pay one stamina (always first)
WAX_ICON_NAMES = ("reroll_shot", "sprint", "free_column", "reroll_one", "reroll_all",
                  "plus_one", "minus_one", "stamina")     # bit i = 1 << i
N_WAX_ICONS = 8
# how a token's icons combine
WAX_ALL = 0              # every action, in printed order (stamina first)
WAX_ONE_OF = 1           # a "/" token: stamina first if shown, then one action of the player's choice
NO_WAX = 0               # icon mask of "no token" (e.g. a non-Finnish board's printed token)

# --- targets on a player board ---------------------------------------------------------------------
TARGET_OPEN = 0
TARGET_HIT = 1
TARGET_MISS = 2

# --- faces of a shooting die ---------------------------------------------------------------------------
FACE_MISS = 0
FACE_HIT = 1

# --- board sides ----------------------------------------------------------------------------------------
SIDE_BASIC = 0
SIDE_ADVANCED = 1
NATION_SIDES = ("basic", "advanced")

# --- rule constants: indices into the compiled `rules` vector -------------------------------------
R_RACE_DICE = 0          # race dice per racer (10)
R_TARGETS = 1            # targets = stamina markers = shots per range visit (5)
R_WAX_TOKENS = 2         # wax tokens per nation (8)
R_WAX_ROW = 3            # tokens placed in the row at set-up (6)
R_DOWNHILL_MOVES = 4     # free moves of the downhill bonus (3)
R_DOWNHILL_PASSES = 5    # racers the downhill bonus may pass (1)
R_UPHILL_PENALTY = 6     # moves lost when starting on a red space (1)
R_LONG_RACE_RANGES = 7   # a course with at least this many ranges is a long race (3)
R_ROUND_CAP = 8          # a race still running after this many rounds is stalled
R_LANES = 9              # lane positions of every row
R_EXHAUSTED_DIE = 10     # die index of the lowest stamina colour (blue)
# switches (interpretations, see docs/skitour/rules.md)
R_SHORT_RACE_ON_TOP = 11     # 1: a short race starts on the top slots (the book's gentler variant)
R_RANGE_PAYMENT = 12         # RANGE_PAY_HIGHEST_UNSHOT or RANGE_PAY_CHOICE
R_DRAFT_FOLLOWS_BONUS = 13   # 1: drafters also follow the leader's downhill bonus steps
R_DRAFTER_BONUS = 14         # 1: a drafter ending on green behind a racer takes its own bonus
R_REROLL_BLUE_REMOVAL = 15   # 1: a rerolled die is placed with the blue 5/6 removal too
R_DIAGONAL_IS_SIDEWAYS = 16  # 1: a diagonal step into a white area counts as a sideways step
R_SPRINT_ICON_COLUMN = 17    # 1: after a sprint icon the sprint column may still be taken (dice twice)
R_RESHOT_SCOPE = 18          # RESHOT_TURN or RESHOT_VISIT: which shots reroll_shot may roll again
R_FIRST_PLAYER = 19          # FIRST_SEAT or FIRST_DRAWN: who holds the first player marker first
R_TWO_PLAYER_SEATS = 20      # SEATS_ALTERNATE or SEATS_TOGETHER: a two-player table's seating
R_COLLAPSE_ANY = 21          # 1: a chosen payment with every marker on blue collapses (else refused)
N_RULES = 22

RANGE_PAY_HIGHEST_UNSHOT = 0   # pay from the highest-valued not-yet-shot column, ties leftmost
RANGE_PAY_CHOICE = 1           # the player picks any not-yet-shot column not on blue
RESHOT_TURN = 0                # reroll_shot: a shot made this turn
RESHOT_VISIT = 1               # reroll_shot: any shot of this range visit, on a shooting turn
RESHOT_SCOPES = ("turn", "visit")
FIRST_SEAT = 0                 # the first player marker starts with seat 0
FIRST_DRAWN = 1                # it starts with a seat drawn per race (its own stream, STREAM_FIRST)
FIRST_PLAYERS = ("first_seat", "drawn")
STREAM_FIRST = 7               # the draw of FIRST_DRAWN: a stream of its own, so the dice stay paired
SEATS_ALTERNATE = 0            # two players: seats A, B, A, B (side = seat % 2)
SEATS_TOGETHER = 1             # two players: seats A, A, B, B (side = seat // 2)
TWO_PLAYER_SEATS = ("alternate", "together")
COLLAPSE_ON = ("forced", "any")  # collapse only on forced payments, or on any payment (§4.3)

MIN_RACERS = 2
MAX_RACERS = 5       # five boards; at 2 players each player steers two nations (4 racers)

# --- the race kernel (kernels/skitour/engine.py): players, records, the event log ----------------
# Record fields beyond the core ones (kernels/records.py); docs/skitour/records.md explains each.
SKITOUR_SEAT_EXTRA = (
    ("nation", "i2"), ("stamina_used", "i2"), ("stamina_left", "i2"), ("collapse_round", "i2"),
    ("finish_round", "i2"), ("turns", "i2"), ("moves", "i2"), ("extra_columns", "i2"),
    ("sprint_taken", "i2"), ("sprint_uses", "i2"), ("occupied_paid", "i2"), ("drafts", "i2"),
    ("draft_steps", "i2"), ("bonuses", "i2"), ("bonus_steps", "i2"),
    ("wax_reroll_shot", "i2"), ("wax_sprint", "i2"), ("wax_free_column", "i2"),
    ("wax_reroll_one", "i2"), ("wax_reroll_all", "i2"), ("wax_plus_one", "i2"),
    ("wax_minus_one", "i2"), ("wax_stamina", "i2"), ("wax_tokens", "i2"), ("printed_uses", "i2"),
    ("flip_trades", "i2"), ("shots", "i2"), ("hits", "i2"),
    ("laps_r1", "i2"), ("laps_r2", "i2"), ("laps_r3", "i2"), ("laps_r4", "i2"),
)
SKITOUR_VISIT_EXTRA = (
    ("arrive_round", "i2"), ("shoot_turns", "i2"), ("range_paid", "i2"), ("reshots", "i2"),
    ("leave_round", "i2"),
)
ELIM_NONE = 0
ELIM_COLLAPSE = 1
ELIM_NAMES = ("none", "collapse")

# player kinds (kernels/skitour/players.py)
PLAYER_RANDOM = 0
PLAYER_HEURISTIC = 1
PLAYER_LOOKAHEAD = 2     # the heuristic, with each move chosen by a search over whole moves
PLAYER_REFERENCE = 3     # the strength reference: its own turn's decisions by rollouts (engine.py)
PLAYER_KINDS = ("random", "heuristic", "lookahead", "reference")

# variants
VARIANT_STANDARD = 0
VARIANT_TWO_PLAYER = 1
VARIANT_NAMES = ("standard", "two_player")

# racer status
RACING = 0
FINISHED = 1
COLLAPSED = 2

# event kinds (docs/skitour/event-log.md)
EV_RACE = 1
EV_SEAT = 2
EV_WAXROW = 3
EV_ROUND = 4
EV_ROLL = 5
EV_BLUE = 6
EV_SIX = 7
EV_BOARD = 8
EV_TURN = 9
EV_WAX = 10
EV_TAKE = 11
EV_PAY = 12
EV_FLIPBACK = 13
EV_COUNT = 14
EV_LIFT = 15
EV_LAP = 16
EV_STEP = 17
EV_BONUS = 18
EV_DRAFT = 19
EV_ARRIVE = 20
EV_SHOT = 21
EV_RESHOT = 22
EV_LAPS = 23
EV_FINISH = 24
EV_COLLAPSE = 25
EV_END = 26
EV_NAMES = ("", "RACE", "SEAT", "WAXROW", "ROUND", "ROLL", "BLUE", "SIX", "BOARD", "TURN", "WAX",
            "TAKE", "PAY", "FLIPBACK", "COUNT", "LIFT", "LAP", "STEP", "BONUS", "DRAFT", "ARRIVE",
            "SHOT", "RESHOT", "LAPS", "FINISH", "COLLAPSE", "END")
LOG_COLS = 16          # round, seat, kind, a0 .. a12

# step kinds and phases, payment reasons, roll purposes, wax moments (event-log.md)
STEP_FORWARD = 0
STEP_SIDE = 1
STEP_DIAG = 2
STEP_ENTRY = 3
STEP_FINISH = 4
PHASE_MOVE = 0
PHASE_BONUS = 1
PHASE_DRAFT = 2
PAY_EXTRA = 1
PAY_TOKEN = 2
PAY_MOVE = 3
PAY_DRAFT = 4
PAY_BONUS = 5
ROLL_PREP = 0
ROLL_ONE = 1
ROLL_ALL = 2
MOMENT_A = 0
MOMENT_B = 1
MOMENT_C = 2
