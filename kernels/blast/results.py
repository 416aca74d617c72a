"""The result row Blast's kernel fills: one int32 row per race and racer.

Blast's own (kernels/blast/, so an edit recompiles Blast's kernels alone); the records every game
shares are kernels/records.py. `FIELDS` are the column names, in order; each name below is
that column's index. -1 means "did not happen" (no shot at a range visit, never arrived).
"""

FIELDS = (
    "race",              # race index within the study (with the seed, replays the race alone)
    "trail",             # trail id of the compiled bundle
    "n_racers",
    "seat",              # 0 .. n_racers-1
    "colour",            # ski colour id (red 0 .. white 5)
    "biathlete",         # biathlete id of the compiled bundle
    "player",            # player kind
    "place",             # 1 = winner
    "won",
    "eliminated",
    "elim_cause",        # 0 none, 1 no cards left, 2 pulse above the limit
    "elim_round",
    "rounds",            # rounds the race lasted
    "stalled",           # 1 if the race hit the round cap
    "distance_left",     # spaces to the finish at the end
    "final_pulse",
    "max_pulse",
    "shots_1", "shots_2",            # 1 if the racer shot at range visit 1 / 2
    "hits_1", "hits_2",              # final hits (bullets included), -1 if no shot
    "dice_hits_1", "dice_hits_2",    # hits from the dice alone
    "shot_pulse_1", "shot_pulse_2",  # pulse when shooting
    "arrive_pulse_1", "arrive_pulse_2",  # pulse after the turn that reached the range
    "arrive_round_1", "arrive_round_2",
    "shot_wind_1", "shot_wind_2",    # wind at the shot: 0 still, 1 crosswind, 2 head, 3 tail
    "waits",
    "bullets_pickup", "bullets_hits", "coach_bullets",
    "wax_black", "wax_yellow", "wax_green", "wax_blue", "wax_white",
    "motivation",        # Motivation cards taken
    "icy",               # icy actions used (cards removed)
    "icy_lap_1", "icy_lap_2", "icy_lap_3",
    "turns", "boosts", "wind_changes",
    "lead_changes",      # race-wide: changes of the leading racer
    "leader_after_range",  # 1 if this racer led when the leader first passed the last range
    "bullets_left", "wax_left",
)
N_FIELDS = len(FIELDS)

RACE, TRAIL, N_RACERS, SEAT, COLOUR, BIATHLETE, PLAYER, PLACE, WON, ELIMINATED, ELIM_CAUSE, \
    ELIM_ROUND, ROUNDS, STALLED, DISTANCE_LEFT, FINAL_PULSE, MAX_PULSE, SHOTS_1, SHOTS_2, HITS_1, \
    HITS_2, DICE_HITS_1, DICE_HITS_2, SHOT_PULSE_1, SHOT_PULSE_2, ARRIVE_PULSE_1, ARRIVE_PULSE_2, \
    ARRIVE_ROUND_1, ARRIVE_ROUND_2, SHOT_WIND_1, SHOT_WIND_2, WAITS, BULLETS_PICKUP, BULLETS_HITS, \
    COACH_BULLETS, WAX_BLACK, WAX_YELLOW, WAX_GREEN, WAX_BLUE, WAX_WHITE, MOTIVATION, ICY, ICY_LAP_1, \
    ICY_LAP_2, ICY_LAP_3, TURNS, BOOSTS, WIND_CHANGES, LEAD_CHANGES, LEADER_AFTER_RANGE, \
    BULLETS_LEFT, WAX_LEFT = range(N_FIELDS)
