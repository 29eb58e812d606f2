#!/usr/bin/env python3
"""mpi4py_colls.py - every collective the MPI adapter intercepts (and the
ones it leaves to the library), called the way mpi4py programs call them,
for tests/suite_mpi4py.sh (issue 37).

mpi4py initialises MPI at MPI_THREAD_MULTIPLE by default, so under
LD_PRELOAD=lib/openmpi/libtorus_pmpi.so this is the adapter at that level
in an outside program.  Calls: the buffer methods (Bcast, Allreduce,
Reduce, Alltoall, Alltoallv, Allgather(v), Gather(v), Scatter(v),
Reduce_scatter(_block), Scan, Exscan, Barrier, Neighbor_alltoallv) on numpy
arrays (the array module where numpy is absent) of several types and ops,
with MPI.IN_PLACE and a derived datatype; the pickled-object methods
(bcast, allreduce, reduce, gather, scatter, allgather, alltoall, scan,
barrier); on MPI.COMM_WORLD, a Dup, a Split and an intercommunicator
(Create_intercomm).  Every value is checked against its formula (floats
hold small integers, exact in any order of summing); rank 0 prints

    mpi4py <version> numpy|array ranks N thread <level> checks C errors E
    digest <hex of every result of every rank>

which must be the same with and without the adapter.
"""
import hashlib
import sys

import mpi4py
from mpi4py import MPI

try:
    import numpy as np
except ImportError:  # the array module: the same calls on bytes-like buffers
    np = None
    import array

comm = MPI.COMM_WORLD
me, n = comm.Get_rank(), comm.Get_size()
h = hashlib.sha256()
checks = 0
errors = []


def check(what, got, want):
    """One result: folded into the digest and compared with its formula."""
    global checks
    checks += 1
    h.update(repr((what, got)).encode())
    if got != want and len(errors) < 5:
        errors.append("rank %d %s: got %r want %r" % (me, what, got, want))


def buf(kind, values):
    """A buffer of values: numpy array, else array.array."""
    if np is not None:
        return np.array(values, dtype={"i": np.int32, "l": np.int64, "d": np.float64, "f": np.float32}[kind])
    return array.array({"i": "i", "l": "q", "d": "d", "f": "f"}[kind], values)


def lst(b):
    return [x.item() if hasattr(x, "item") else x for x in b]


def rooted(c, tag):
    """Bcast, Reduce, Gather(v), Scatter(v) on intracommunicator c."""
    r, s = c.Get_rank(), c.Get_size()
    for root in range(s):
        for k, kind in ((0, "i"), (1, "i"), (7, "l"), (1000, "d"), (40000, "i"), (3, "f")):
            b = buf(kind, [(root * 31 + i) % 1000 if r == root else 0 for i in range(k)])
            c.Bcast(b, root=root)
            check("%s Bcast %s %d root %d" % (tag, kind, k, root), lst(b), [(root * 31 + i) % 1000 for i in range(k)])
        # a derived datatype: 3 blocks of 2 ints, stride 4 (holes untouched)
        vec = MPI.INT.Create_vector(3, 2, 4).Commit()
        b = buf("i", [i + 100 * root if r == root else -1 for i in range(12)])
        c.Bcast([b, 1, vec], root=root)
        vec.Free()
        want = [i + 100 * root if (i % 4 < 2 and i < 10) or r == root else -1 for i in range(12)]
        check("%s Bcast vector root %d" % (tag, root), lst(b), want)
        sb, rb = buf("l", [r + i for i in range(5)]), buf("l", [0] * 5)
        c.Reduce(sb, rb if r == root else None, op=MPI.SUM, root=root)
        if r == root:
            check("%s Reduce root %d" % (tag, root), lst(rb), [s * (s - 1) // 2 + s * i for i in range(5)])
            ib = buf("l", [r + i for i in range(5)])
            c.Reduce(MPI.IN_PLACE, ib, op=MPI.MAX, root=root)
            check("%s Reduce in place root %d" % (tag, root), lst(ib), [s - 1 + i for i in range(5)])
        else:
            c.Reduce(buf("l", [r + i for i in range(5)]), None, op=MPI.MAX, root=root)
        g = buf("i", [0] * (2 * s))
        c.Gather(buf("i", [r, r * r]), g if r == root else None, root=root)
        if r == root:
            check("%s Gather root %d" % (tag, root), lst(g), [x for q in range(s) for x in (q, q * q)])
        counts = [q + 1 for q in range(s)]
        gv = buf("i", [0] * sum(counts))
        c.Gatherv(buf("i", [r] * (r + 1)), [gv, counts] if r == root else None, root=root)
        if r == root:
            check("%s Gatherv root %d" % (tag, root), lst(gv), [q for q in range(s) for _ in range(q + 1)])
        out = buf("i", [0, 0])
        c.Scatter(buf("i", [q * 10 + j for q in range(s) for j in range(2)]) if r == root else None, out, root=root)
        check("%s Scatter root %d" % (tag, root), lst(out), [r * 10, r * 10 + 1])
        out = buf("i", [0] * (r + 1))
        c.Scatterv([buf("i", [q for q in range(s) for _ in range(q + 1)]), counts] if r == root else None, out,
                   root=root)
        check("%s Scatterv root %d" % (tag, root), lst(out), [r] * (r + 1))


def reducing(c, tag):
    """Allreduce (types, ops, IN_PLACE, MAXLOC), Reduce_scatter(_block), Scan, Exscan."""
    r, s = c.Get_rank(), c.Get_size()
    for kind in "ildf":
        for k in (1, 5, 3000):
            sb, rb = buf(kind, [r + 1 + i % 7 for i in range(k)]), buf(kind, [0] * k)
            c.Allreduce(sb, rb, op=MPI.SUM)
            check("%s Allreduce %s %d sum" % (tag, kind, k), lst(rb), [s * (s + 1) // 2 + s * (i % 7) for i in range(k)])
        for op, name, want in ((MPI.MAX, "max", s), (MPI.MIN, "min", 1), (MPI.PROD, "prod", None)):
            b = buf(kind, [r + 1] * 4)
            c.Allreduce(MPI.IN_PLACE, b, op=op)
            if want is None:
                want = 1
                for q in range(s):
                    want *= q + 1
            check("%s Allreduce in place %s %s" % (tag, kind, name), lst(b), [want] * 4)
    for op, name, want in ((MPI.BAND, "band", 0), (MPI.BOR, "bor", (1 << s) - 1), (MPI.BXOR, "bxor", (1 << s) - 1),
                           (MPI.LAND, "land", 1), (MPI.LOR, "lor", 1)):
        v = 1 << r if name[0] == "b" else 1
        rb = buf("i", [0, 0])
        c.Allreduce(buf("i", [v, v]), rb, op=op)
        check("%s Allreduce %s" % (tag, name), lst(rb), [want if s > 1 or name[0] != "b" else v] * 2)
    if np is not None:
        # MAXLOC on (double, int) pairs laid out as MPI_DOUBLE_INT
        pair = np.dtype([("v", "f8"), ("i", "i4")], align=True)
        sb = np.array([((r * 7) % s, r), (-r, r)], dtype=pair)
        rb = np.zeros(2, dtype=pair)
        c.Allreduce([sb, MPI.DOUBLE_INT], [rb, MPI.DOUBLE_INT], op=MPI.MAXLOC)
        best = max(range(s), key=lambda q: ((q * 7) % s, -q))
        check("%s Allreduce maxloc" % tag, [tuple(x.item() for x in e) for e in rb], [((best * 7) % s, best), (0, 0)])
    rb = buf("l", [0, 0])
    c.Reduce_scatter_block(buf("l", [r + q for q in range(s) for _ in range(2)]), rb, op=MPI.SUM)
    check("%s Reduce_scatter_block" % tag, lst(rb), [s * (s - 1) // 2 + s * r] * 2)
    counts = [q + 1 for q in range(s)]
    rb = buf("l", [0] * (r + 1))
    c.Reduce_scatter(buf("l", [1] * sum(counts)), rb, recvcounts=counts, op=MPI.SUM)
    check("%s Reduce_scatter" % tag, lst(rb), [s] * (r + 1))
    rb = buf("l", [0])
    c.Scan(buf("l", [r + 1]), rb, op=MPI.SUM)
    check("%s Scan" % tag, lst(rb), [(r + 1) * (r + 2) // 2])
    rb = buf("l", [-5])
    c.Exscan(buf("l", [r + 1]), rb, op=MPI.SUM)
    if r:
        check("%s Exscan" % tag, lst(rb), [r * (r + 1) // 2])


def exchanging(c, tag):
    """Alltoall(v), Allgather(v), Barrier, non-blocking forms."""
    r, s = c.Get_rank(), c.Get_size()
    for k in (0, 1, 3, 500):
        rb = buf("i", [0] * (k * s))
        c.Alltoall(buf("i", [r * 1000 + q * 10 + j for q in range(s) for j in range(k)]), rb)
        check("%s Alltoall %d" % (tag, k), lst(rb), [q * 1000 + r * 10 + j for q in range(s) for j in range(k)])
    b = buf("i", [r * 1000 + q for q in range(s)])
    c.Alltoall(MPI.IN_PLACE, b)
    check("%s Alltoall in place" % tag, lst(b), [q * 1000 + r for q in range(s)])
    sc = [(r + q) % 3 for q in range(s)]
    rc = [(q + r) % 3 for q in range(s)]
    sd = [sum(sc[:q]) for q in range(s)]
    rd = [sum(rc[:q]) for q in range(s)]
    sb = buf("l", [r * 100 + q for q in range(s) for _ in range(sc[q])])
    rb = buf("l", [0] * sum(rc))
    c.Alltoallv([sb, (sc, sd)], [rb, (rc, rd)])
    check("%s Alltoallv" % tag, lst(rb), [q * 100 + r for q in range(s) for _ in range(rc[q])])
    rb = buf("d", [0] * (2 * s))
    c.Allgather(buf("d", [r, r + 0.5]), rb)
    check("%s Allgather" % tag, lst(rb), [x for q in range(s) for x in (q, q + 0.5)])
    counts = [q + 1 for q in range(s)]
    rb = buf("i", [0] * sum(counts))
    c.Allgatherv(buf("i", [r] * (r + 1)), [rb, counts])
    check("%s Allgatherv" % tag, lst(rb), [q for q in range(s) for _ in range(q + 1)])
    c.Barrier()
    # every buffer named until the wait: MPI owns them while in flight
    b = buf("i", [r, 7] if r == 0 else [0, 0])
    req = c.Ibcast(b, root=0)
    one, rb = buf("i", [1]), buf("i", [0])
    req2 = c.Iallreduce(one, rb, op=MPI.SUM)
    mid = buf("i", [1])
    c.Allreduce(MPI.IN_PLACE, mid, op=MPI.SUM)  # an intercepted call while they are in flight
    MPI.Request.Waitall([req, req2])
    check("%s Allreduce among non-blocking" % tag, lst(mid), [s])
    check("%s Ibcast Iallreduce" % tag, (lst(b), lst(rb)), ([0, 7], [s]))


def pickled(c, tag):
    """The lower-case methods: pickled Python objects over the buffer calls."""
    r, s = c.Get_rank(), c.Get_size()
    for root in range(s):
        obj = {"root": root, "list": list(range(root + 3)), "s": "x" * (root * 1000)} if r == root else None
        check("%s bcast root %d" % (tag, root), c.bcast(obj, root=root),
              {"root": root, "list": list(range(root + 3)), "s": "x" * (root * 1000)})
        check("%s reduce root %d" % (tag, root), c.reduce(r + 1, op=MPI.SUM, root=root),
              s * (s + 1) // 2 if r == root else None)
        check("%s gather root %d" % (tag, root), c.gather((r, "r%d" % r), root=root),
              [(q, "r%d" % q) for q in range(s)] if r == root else None)
        check("%s scatter root %d" % (tag, root), c.scatter([[q] * q for q in range(s)] if r == root else None,
                                                            root=root), [r] * r)
    check("%s allreduce sum" % tag, c.allreduce(r + 1, op=MPI.SUM), s * (s + 1) // 2)
    check("%s allreduce max" % tag, c.allreduce(r, op=MPI.MAX), s - 1)
    check("%s allreduce lists" % tag, c.allreduce([r], op=MPI.SUM), list(range(s)))
    check("%s allgather" % tag, c.allgather({"r": r}), [{"r": q} for q in range(s)])
    check("%s alltoall" % tag, c.alltoall([(r, q) for q in range(s)]), [(q, r) for q in range(s)])
    check("%s scan" % tag, c.scan(r + 1), (r + 1) * (r + 2) // 2)
    c.barrier()


def neighbours(c, tag):
    """Neighbor_alltoallv on a ring as a distributed graph."""
    r, s = c.Get_rank(), c.Get_size()
    left, right = (r - 1) % s, (r + 1) % s
    g = c.Create_dist_graph_adjacent([left, right], [left, right], reorder=False)
    # 2 ints to each neighbour (the right one's first in the buffer), each
    # naming its sender: at 1 and 2 ranks both edges join the same pair
    # and MPI pairs them by the order of listing
    sb = buf("i", [r * 10 + 7] * 4 + [-1])
    rb = buf("i", [0] * 5)
    g.Neighbor_alltoallv([sb, ([2, 2], [2, 0])], [rb, ([2, 2], [3, 0])])
    check("%s Neighbor_alltoallv" % tag, lst(rb), [right * 10 + 7] * 2 + [0] + [left * 10 + 7] * 2)
    g.Free()


def intercomm(tag):
    """An intercommunicator: even against odd ranks of MPI_COMM_WORLD."""
    if n < 2:
        return
    local = comm.Split(me % 2, me)
    ic = local.Create_intercomm(0, comm, 1 - me % 2, tag=37)
    lr = local.Get_rank()
    # group 0 broadcasts to group 1
    b = buf("i", [42, 43] if me == 0 else [0, 0])
    if me % 2 == 0:
        ic.Bcast(b, root=MPI.ROOT if lr == 0 else MPI.PROC_NULL)
    else:
        ic.Bcast(b, root=0)
    if me % 2 == 1 or lr == 0:
        check("%s inter Bcast" % tag, lst(b), [42, 43])
    rb = buf("l", [0])
    ic.Allreduce(buf("l", [me + 1]), rb, op=MPI.SUM)
    remote = sum(q + 1 for q in range(n) if q % 2 != me % 2)
    check("%s inter Allreduce" % tag, lst(rb), [remote])
    check("%s inter allgather" % tag, ic.allgather(me), [q for q in range(n) if q % 2 != me % 2])
    ic.Barrier()
    ic.Free()
    local.Free()


def main():
    level = MPI.Query_thread()
    for c, tag in ((comm, "world"), (comm.Dup(), "dup"), (comm.Split(me % 2, -me), "split")):
        rooted(c, tag)
        reducing(c, tag)
        exchanging(c, tag)
        pickled(c, tag)
        neighbours(c, tag)
        if c != comm:
            c.Free()
    intercomm("world")
    digests = comm.gather(h.hexdigest(), root=0)
    total = comm.reduce(checks, op=MPI.SUM, root=0)
    errs = comm.gather(errors, root=0)
    if me == 0:
        names = {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled",
                 MPI.THREAD_SERIALIZED: "serialized", MPI.THREAD_MULTIPLE: "multiple"}
        bad = [e for q in errs for e in q]
        for e in bad[:10]:
            print(e, file=sys.stderr)
        print("mpi4py %s %s ranks %d thread %s checks %d errors %d digest %s" % (
            mpi4py.__version__,
            "numpy" if np is not None else "array", n, names.get(level, level), total, len(bad),
            hashlib.sha256("".join(digests).encode()).hexdigest()[:32]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
