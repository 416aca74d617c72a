"""Borrowed array views: the same data, shape and strides, without a reference count.

Numba counts references to every array it passes around with atomic operations; in the race
kernels these were nearly half of the running time (measured with `perf`), because every read of
an array out of the tables or the state NamedTuple takes and drops a reference. A borrowed view has
no memory-info block, so taking and dropping it costs a null check. It is only safe while the
original array is alive and unchanged in size: use it strictly inside a kernel call whose caller
holds the originals, and never return it or store it anywhere that outlives the call.
"""
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def borrow_nb(typingctx, arr):
    """A view of `arr` without reference counting (see the module docstring)."""
    if not isinstance(arr, types.Array):
        return None
    sig = arr(arr)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        src = context.make_array(aryty)(context, builder, value=args[0])
        dst = context.make_array(aryty)(context, builder)
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(dst, name, getattr(src, name))
        dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
        dst.parent = cgutils.get_null_value(dst.parent.type)
        return dst._getvalue()

    return sig, codegen
