"""Run by tests/interop/test_mpi.py under ``mpirun -n 2``: each rank owns a band of rows of a periodic
global array, exchanges its edge rows with its neighbours through mpi4py, handing Warp arrays to
MPI directly (their memory, no copy), then a kernel reads the received halo rows.

Prints one ``OK <rank> <dtype>`` line per checked element type; exits 1 on any mismatch.
"""

import sys
from typing import Any

import numpy as np
from mpi4py import MPI

import warp_interactive as wp

ROWS, NX = 5, 7     # rows owned per rank, row length


@wp.kernel
def double_rows(a: wp.array2d(dtype=Any)):
    i, j = wp.tid()
    a[i + 1, j] = a[i + 1, j] + a[i + 1, j]   # the owned rows (1..ROWS); halos untouched


@wp.kernel
def halo_sum(a: wp.array2d(dtype=Any), out: wp.array2d(dtype=Any)):
    i, j = wp.tid()
    out[i, j] = a[i, j] + a[i + 2, j]         # the rows above and below owned row i + 1


def global_rows(size, shape_tail, np_dtype):
    n = size * ROWS
    g = np.arange(n * NX * int(np.prod(shape_tail)), dtype=np.float64).reshape((n, NX) + shape_tail)
    return (g % 97 + 1).astype(np_dtype)


def check(comm, dtype, np_dtype, shape_tail):
    rank, size = comm.Get_rank(), comm.Get_size()
    g = global_rows(size, shape_tail, np_dtype)
    start = rank * ROWS
    local = np.zeros((ROWS + 2, NX) + shape_tail, np_dtype)
    local[1:ROWS + 1] = g[start:start + ROWS]
    a = wp.array(local, dtype=dtype, device="cpu")
    out = wp.zeros((ROWS, NX), dtype=dtype, device="cpu")

    # the owned rows are updated on a CPU stream, then exchanged once its event is reached
    stream, done = wp.Stream("cpu"), wp.Event("cpu")
    with wp.ScopedStream(stream):
        wp.launch(double_rows, (ROWS, NX), inputs=[a])
        wp.record_event(done)
    wp.synchronize_event(done)

    # zero-copy: MPI sees the arrays' own memory
    for row in (a[0], a[1], a[ROWS], a[ROWS + 1]):
        if MPI.buffer(row).address != row.ptr or MPI.buffer(row).nbytes != NX * wp.types.type_size_in_bytes(dtype):
            return f"rank {rank} {dtype.__name__}: MPI got a copy of a row, not the array's memory"
    lower, upper = (rank + 1) % size, (rank - 1) % size
    comm.Sendrecv(a[1], upper, 0, a[ROWS + 1], lower, 0)        # first owned row goes up
    comm.Sendrecv(a[ROWS], lower, 1, a[0], upper, 1)            # last owned row goes down

    with wp.ScopedStream(stream):
        wp.launch(halo_sum, (ROWS, NX), inputs=[a, out])
    stream.synchronize()

    g2 = g * np_dtype(2)
    n = size * ROWS
    want = np.stack([g2[(start + i - 1) % n] + g2[(start + i + 1) % n] for i in range(ROWS)])
    got = out.numpy()
    if not np.array_equal(got, want):
        return f"rank {rank} {dtype.__name__}: halo sums differ\n{got}\n{want}"
    return None


def main():
    comm = MPI.COMM_WORLD
    failures = 0
    for dtype, np_dtype, tail in ((wp.float32, np.float32, ()), (wp.float64, np.float64, ()),
                                  (wp.int64, np.int64, ()), (wp.vec3, np.float32, (3,))):
        err = check(comm, dtype, np_dtype, tail)
        bad = comm.allreduce(1 if err else 0)
        # one write per line: the two ranks share mpirun's standard output
        sys.stdout.write(f"{err}\n" if err else f"OK {comm.Get_rank()} {dtype.__name__}\n")
        sys.stdout.flush()
        failures += bad
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
