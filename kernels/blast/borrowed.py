"""Borrowed copies of the tables and the race state (kernels/borrow.py says why and when).

Written field by field: the NamedTuple constructors need every field, so a field added to the
tables or the state but not here stops the kernels from compiling."""
from ..jit import inline

from ..borrow import borrow_nb
from .state import RaceState
from .tables import BlastTables


@inline
def borrow_tables_nb(tb):
    return BlastTables(
        borrow_nb(tb.rules),
        borrow_nb(tb.dice_colour),
        borrow_nb(tb.card_kind),
        borrow_nb(tb.card_init),
        borrow_nb(tb.card_steps),
        borrow_nb(tb.card_pulse),
        borrow_nb(tb.card_wind),
        borrow_nb(tb.card_icy),
        borrow_nb(tb.card_worth),
        borrow_nb(tb.accuracy),
        borrow_nb(tb.flags),
        borrow_nb(tb.deck),
        borrow_nb(tb.motivation),
        borrow_nb(tb.ski_rank),
        borrow_nb(tb.ski_order),
        borrow_nb(tb.gear_bullets),
        borrow_nb(tb.gear_wax),
        borrow_nb(tb.route_len),
        borrow_nb(tb.terrain),
        borrow_nb(tb.lanes),
        borrow_nb(tb.heading),
        borrow_nb(tb.physical),
        borrow_nb(tb.coach_colour),
        borrow_nb(tb.coach_strength),
        borrow_nb(tb.start_line),
        borrow_nb(tb.is_range),
        borrow_nb(tb.lap),
        borrow_nb(tb.finish_pos),
        borrow_nb(tb.range_pos),
        borrow_nb(tb.grid_slots),
        borrow_nb(tb.n_grid_slots),
        borrow_nb(tb.range_card),
        borrow_nb(tb.up_count),
        borrow_nb(tb.up_flat_count),
        borrow_nb(tb.up_at),
        borrow_nb(tb.up_flat_at),
        borrow_nb(tb.stop_ahead),
        borrow_nb(tb.next_range),
    )


@inline
def borrow_state_nb(st):
    return RaceState(
        borrow_nb(st.g),
        borrow_nb(st.dice),
        borrow_nb(st.seat),
        borrow_nb(st.wax),
        borrow_nb(st.hand),
        borrow_nb(st.disc),
        borrow_nb(st.mdeck),
        borrow_nb(st.mworth),
        borrow_nb(st.stats),
        borrow_nb(st.params),
        borrow_nb(st.scratch),
        borrow_nb(st.rng),
        borrow_nb(st.log),
        borrow_nb(st.script),
        borrow_nb(st.work),
        borrow_nb(st.cand),
        borrow_nb(st.masks),
    )
