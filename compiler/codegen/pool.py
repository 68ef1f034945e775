"""A persistent thread pool, emitted as LLVM IR: no thread is created or joined per call.

    void cuvil_pool_run(ptr task, ptr ctx, i64 items, i64 threads)
    task: void (ptr ctx, i64 first, i64 count)

runs ``task`` over items [0, items) in chunks claimed by the caller and up to
``threads - 1`` workers. Workers are POSIX threads started on first use (detached, grown
on demand, never joined); between jobs each spins briefly (``pause``), then gives its
core away with ``sched_yield``, then sleeps on a futex, so an idle pool costs nothing
and does not hold a core another thread pool (torch's OpenMP) wants. The caller always
claims chunks too, so a job completes even if no worker wakes (after ``fork``, or when
the pool is busy with another caller's job: then the caller runs every item itself).

One job at a time: ``word`` holds (generation << 32 | next chunk); a chunk is claimed by
a compare-and-swap that also checks the generation, so a late worker can never take a
chunk of the next job with the previous job's task. The caller waits until ``done``
counts every chunk before it returns.

Where the pool lives: every module that splits work gets its own copy (internal, so an
AOT library is self-contained) and calls it through the global function pointer
``cuvil_pool_entry``; the JIT points that at one process-wide copy
(runtime/pool.py), so all JIT-compiled models share one set of workers.
"""

from __future__ import annotations

import llvmlite.ir as ir

__all__ = ["pool_entry", "emit_pool", "ENTRY_GLOBAL", "RUN", "TASK_TYPE"]

I8, I32, I64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
PTR = ir.PointerType()
VOID = ir.VoidType()
TASK_TYPE = ir.FunctionType(VOID, [PTR, I64, I64])
RUN_TYPE = ir.FunctionType(VOID, [PTR, PTR, I64, I64])
ENTRY_GLOBAL = "cuvil_pool_entry"
RUN = "cuvil_pool_run"
CHUNKS_PER_THREAD = 4  # dynamic balance on a shared machine vs. per-chunk overhead
SPIN_CYCLES = 50_000  # ~20 us of `pause` before yielding
YIELD_CYCLES = 500_000  # then sched_yield until ~200 us, then sleep on the futex
MAX_WORKERS = 255
FUTEX = {"x86_64": 202, "aarch64": 98}  # SYS_futex
WAIT_PRIVATE, WAKE_PRIVATE = 128, 129


def pool_entry(module: ir.Module) -> ir.GlobalVariable:
    """The function pointer kernels call the pool through (emitting the pool once)."""
    if ENTRY_GLOBAL in module.globals:
        return module.globals[ENTRY_GLOBAL]
    run = emit_pool(module, linkage="internal")
    g = ir.GlobalVariable(module, PTR, ENTRY_GLOBAL)
    g.initializer = run
    g.align = 8
    return g


def emit_pool(module: ir.Module, linkage: str = "internal") -> ir.Function:
    """The pool's state and functions in `module`; returns ``cuvil_pool_run``."""
    return _Pool(module, linkage).run


class _Callee:
    """A pointer value seen as a function of type `ty` (llvmlite asks the callee for its
    ``function_type``; an opaque pointer has none)."""

    def __init__(self, value: ir.Value, ty: ir.FunctionType) -> None:
        self._value, self.function_type, self.type = value, ty, value.type

    def get_reference(self) -> str:
        return self._value.get_reference()

    def __getattr__(self, name: str):
        return getattr(self._value, name)


def indirect_call(b: ir.IRBuilder, target: ir.Value, ty: ir.FunctionType, args):
    """Call through a pointer value."""
    return b.call(_Callee(target, ty), args)


def _c(t: ir.Type, v: int) -> ir.Constant:
    return ir.Constant(t, v)


class _Pool:
    def __init__(self, module: ir.Module, linkage: str) -> None:
        self.m = module
        arch = (module.triple or "").split("-")[0]
        self.futex_nr = FUTEX.get(arch)
        self.x86 = arch == "x86_64"
        g = self.state
        self.word, self.done, self.seats = (
            g("word", I64),
            g("done", I64),
            g("seats", I64),
        )
        self.task, self.ctx = g("task", I64), g("ctx", I64)  # pointers, as integers
        self.items, self.grain, self.chunks = (
            g("items", I64),
            g("grain", I64),
            g("chunks", I64),
        )
        self.futex, self.sleepers = g("futex", I32), g("sleepers", I32)
        self.workers, self.lock = g("workers", I32), g("lock", I32)
        self.cpu = g("cpu", I32)  # the CPU the caller published the job from
        self.claim = self._claim()
        self.worker = self._worker()
        self.run = self._run(linkage)

    def state(self, name: str, t: ir.Type) -> ir.GlobalVariable:
        g = ir.GlobalVariable(self.m, t, f"cuvil.pool.{name}")
        g.linkage, g.align = "internal", 64  # one cache line each: no false sharing
        g.initializer = ir.Constant(t, None)
        return g

    def fn(self, name: str, ty: ir.FunctionType, linkage="internal") -> tuple:
        f = ir.Function(self.m, ty, name)
        f.linkage = linkage
        f.attributes.add("nounwind")
        return f, ir.IRBuilder(f.append_basic_block("entry"))

    def extern(self, name: str, ty: ir.FunctionType) -> ir.Function:
        return self.m.globals.get(name) or ir.Function(self.m, ty, name)

    # ---- small pieces -----------------------------------------------------------------
    def load(self, b, g, t):
        return b.load_atomic(g, "monotonic", t.width // 8, typ=t)

    def store(self, b, v, g, t):
        b.store_atomic(v, g, "monotonic", t.width // 8)

    def relax(self, b, start) -> None:
        """pause while young, sched_yield once older than SPIN_CYCLES (start: rdtsc)."""
        clock = self.clock(b)
        old = b.icmp_unsigned(">", b.sub(clock, start), _c(I64, SPIN_CYCLES))
        with b.if_else(old) as (yield_, spin):
            with yield_:
                b.call(self.extern("sched_yield", ir.FunctionType(I32, [])), [])
            with spin:
                if self.x86:
                    b.call(
                        self.extern("llvm.x86.sse2.pause", ir.FunctionType(VOID, [])),
                        [],
                    )

    def clock(self, b) -> ir.Value:
        return b.call(
            self.extern("llvm.readcyclecounter", ir.FunctionType(I64, [])), []
        )

    def futex_call(self, b, op: int, value) -> None:
        if self.futex_nr is None:
            return
        syscall = self.extern("syscall", ir.FunctionType(I64, [I64], var_arg=True))
        val = b.zext(value, I64) if value.type == I32 else value
        b.call(
            syscall,
            [
                _c(I64, self.futex_nr),
                self.futex,
                _c(I64, op),
                val,
                ir.Constant(PTR, None),
            ],
        )

    # ---- claiming chunks ----------------------------------------------------------------
    def _claim(self) -> ir.Function:
        """claim(gen): run chunks of job `gen` until none is left (or a newer job began)."""
        f, b = self.fn("cuvil.pool.claim", ir.FunctionType(VOID, [I64]))
        gen = f.args[0]
        task = b.inttoptr(self.load(b, self.task, I64), PTR)
        ctx = b.inttoptr(self.load(b, self.ctx, I64), PTR)
        items, grain = self.load(b, self.items, I64), self.load(b, self.grain, I64)
        chunks = self.load(b, self.chunks, I64)
        head, work, out = (f.append_basic_block(n) for n in ("head", "work", "out"))
        b.branch(head)
        b.position_at_end(head)
        w = b.load_atomic(self.word, "acquire", 8, typ=I64)
        idx = b.and_(w, _c(I64, 0xFFFFFFFF))
        mine = b.and_(
            b.icmp_unsigned("==", b.lshr(w, _c(I64, 32)), gen),
            b.icmp_unsigned("<", idx, chunks),
        )
        try_bb = f.append_basic_block("try")
        b.cbranch(mine, try_bb, out)
        b.position_at_end(try_bb)
        won = b.extract_value(
            b.cmpxchg(self.word, w, b.add(w, _c(I64, 1)), "acq_rel", "acquire"), 1
        )
        b.cbranch(won, work, head)
        b.position_at_end(work)
        first = b.mul(idx, grain)
        left = b.sub(items, first)
        count = b.select(b.icmp_signed("<", left, grain), left, grain)
        indirect_call(b, task, TASK_TYPE, [ctx, first, count])
        b.atomic_rmw("add", self.done, _c(I64, 1), "release")
        b.branch(head)
        b.position_at_end(out)
        b.ret_void()
        return f

    # ---- the workers ----------------------------------------------------------------------
    def _worker(self) -> ir.Function:
        """Thread main: wait for a generation newer than the last one seen, take a seat
        (at most `threads - 1` workers per job), claim chunks, repeat forever."""
        f, b = self.fn("cuvil.pool.worker", ir.FunctionType(PTR, [PTR]))
        entry, wait = b.block, f.append_basic_block("wait")
        b.branch(wait)
        b.position_at_end(wait)
        seen = b.phi(I64, "seen")
        seen.add_incoming(_c(I64, 0), entry)
        self.wait_for_job(f, b, seen)
        if self.futex_nr is not None:
            self.step_aside(b)
        seat = b.atomic_rmw("sub", self.seats, _c(I64, 1), "acq_rel")
        cur = b.lshr(b.load_atomic(self.word, "acquire", 8, typ=I64), _c(I64, 32))
        with b.if_then(b.icmp_signed(">", seat, _c(I64, 0))):
            b.call(self.claim, [cur])  # the seat belongs to the newest job
        seen.add_incoming(cur, b.block)
        b.branch(wait)
        return f

    def wait_for_job(self, f, b, seen) -> None:
        """Spin, then yield, then sleep on the futex until the generation differs from
        `seen`."""
        start = self.clock(b)
        head, sleep, got = (f.append_basic_block(n) for n in ("poll", "sleep", "got"))
        b.branch(head)
        b.position_at_end(head)
        gen = b.lshr(b.load_atomic(self.word, "acquire", 8, typ=I64), _c(I64, 32))
        cont = f.append_basic_block("idle")
        b.cbranch(b.icmp_unsigned("!=", gen, seen), got, cont)
        b.position_at_end(cont)
        long_idle = b.icmp_unsigned(
            ">", b.sub(self.clock(b), start), _c(I64, YIELD_CYCLES)
        )
        relax = f.append_basic_block("relax")
        b.cbranch(long_idle, sleep, relax)
        b.position_at_end(relax)
        self.relax(b, start)
        b.branch(head)
        b.position_at_end(sleep)
        ticket = b.load_atomic(self.futex, "seq_cst", 4, typ=I32)
        b.atomic_rmw("add", self.sleepers, _c(I32, 1), "seq_cst")
        again = b.lshr(b.load_atomic(self.word, "seq_cst", 8, typ=I64), _c(I64, 32))
        with b.if_then(b.icmp_unsigned("==", again, seen)):
            self.futex_call(b, WAIT_PRIVATE, ticket)
        b.atomic_rmw("sub", self.sleepers, _c(I32, 1), "seq_cst")
        b.branch(head)
        b.position_at_end(got)

    def step_aside(self, b) -> None:
        """Leave the caller's CPU if the scheduler woke this worker onto it.

        A worker that slept on the futex is placed by the kernel on wake-up; a kernel
        that packs tasks onto few CPUs (as some VMs' do) may put it on the caller's own
        CPU, where it only runs while the caller waits, and leaves it there: the job
        then runs on one core (measured: 1 in 6 processes on a 2-vCPU VM, for every
        call after). So the worker drops the caller's CPU from its affinity mask (the
        kernel moves it at once) and restores the mask (it stays where it went). With
        one CPU allowed, or on a CPU of its own, it does nothing."""
        f = b.function
        getcpu = self.extern("sched_getcpu", ir.FunctionType(I32, []))
        mine, theirs = b.call(getcpu, []), self.load(b, self.cpu, I32)
        with b.if_then(b.icmp_signed("==", mine, theirs)):
            mask_t = ir.ArrayType(I64, 16)  # cpu_set_t: 1024 CPUs
            with b.goto_entry_block():
                b.position_at_start(f.entry_basic_block)
                orig, moved = b.alloca(mask_t), b.alloca(mask_t)
            size = _c(I64, 128)
            aff = ir.FunctionType(I32, [I64, I64, PTR])
            get = self.extern("sched_getaffinity", aff)
            put = self.extern("sched_setaffinity", aff)
            b.call(get, [_c(I64, 0), size, orig])
            b.store(b.load(orig, typ=mask_t), moved)
            word = b.gep(
                moved,
                [_c(I32, 0), b.zext(b.lshr(theirs, _c(I32, 6)), I64)],
                inbounds=True,
            )
            bit = b.shl(_c(I64, 1), b.zext(b.and_(theirs, _c(I32, 63)), I64))
            b.store(b.and_(b.load(word, typ=I64), b.not_(bit)), word)
            ctpop = self.extern("llvm.ctpop.i64", ir.FunctionType(I64, [I64]))
            left = _c(I64, 0)
            for i in range(16):
                w = b.load(
                    b.gep(moved, [_c(I32, 0), _c(I32, i)], inbounds=True), typ=I64
                )
                left = b.add(left, b.call(ctpop, [w]))
            with b.if_then(b.icmp_unsigned(">", left, _c(I64, 0))):
                b.call(put, [_c(I64, 0), size, moved])
                b.call(put, [_c(I64, 0), size, orig])

    def start_workers(self, b, want) -> None:
        """Grow the pool to `want` workers (i32; the caller holds the lock)."""
        f = b.function
        have = self.load(b, self.workers, I32)
        want = b.select(
            b.icmp_signed(">", want, _c(I32, MAX_WORKERS)), _c(I32, MAX_WORKERS), want
        )
        pre, head, body, done = (
            b.block,
            *(f.append_basic_block(n) for n in ("grow", "spawn", "grown")),
        )
        b.branch(head)
        b.position_at_end(head)
        n = b.phi(I32, "n")
        n.add_incoming(have, pre)
        b.cbranch(b.icmp_signed("<", n, want), body, done)
        b.position_at_end(body)
        with b.goto_entry_block():
            b.position_at_start(f.entry_basic_block)
            tid = b.alloca(I64)
        create = self.extern(
            "pthread_create", ir.FunctionType(I32, [PTR, PTR, PTR, PTR])
        )
        detach = self.extern("pthread_detach", ir.FunctionType(I32, [I64]))
        null = ir.Constant(PTR, None)
        rc = b.call(create, [tid, null, self.worker, null])
        ok = b.icmp_signed("==", rc, _c(I32, 0))
        with b.if_then(ok):
            b.call(detach, [b.load(tid, typ=I64)])
        nxt = b.select(ok, b.add(n, _c(I32, 1)), want)  # a failed create: stop growing
        self.store(b, nxt, self.workers, I32)
        n.add_incoming(nxt, b.block)
        b.branch(head)
        b.position_at_end(done)

    # ---- the caller -------------------------------------------------------------------------
    def _run(self, linkage: str) -> ir.Function:
        f, b = self.fn(RUN, RUN_TYPE, linkage)
        task, ctx, items, threads = f.args
        for arg, name in zip(f.args, ("task", "ctx", "items", "threads"), strict=True):
            arg.name = name
        alone = b.icmp_signed("<", b.sub(threads, _c(I64, 1)), _c(I64, 1))
        alone = b.or_(alone, b.icmp_signed("<", items, _c(I64, 2)))
        busy = b.extract_value(
            b.cmpxchg(self.lock, _c(I32, 0), _c(I32, 1), "acquire", "monotonic"), 1
        )
        serial = b.or_(alone, b.not_(busy))
        with b.if_else(serial) as (by_itself, shared):
            with by_itself:
                with b.if_then(b.and_(alone, busy)):
                    b.store_atomic(_c(I32, 0), self.lock, "release", 4)
                indirect_call(b, task, TASK_TYPE, [ctx, _c(I64, 0), items])
            with shared:
                self.publish_and_join(b, task, ctx, items, threads)
        b.ret_void()
        return f

    def publish_and_join(self, b, task, ctx, items, threads) -> None:
        helpers = b.sub(threads, _c(I64, 1))
        self.start_workers(b, b.trunc(helpers, I32))
        per = b.mul(threads, _c(I64, CHUNKS_PER_THREAD))
        grain = b.udiv(b.add(items, b.sub(per, _c(I64, 1))), per)
        chunks = b.udiv(b.add(items, b.sub(grain, _c(I64, 1))), grain)
        task, ctx = b.ptrtoint(task, I64), b.ptrtoint(ctx, I64)
        for value, g, t in (
            (task, self.task, I64),
            (ctx, self.ctx, I64),
            (items, self.items, I64),
            (grain, self.grain, I64),
            (chunks, self.chunks, I64),
        ):
            self.store(b, value, g, t)
        b.store_atomic(_c(I64, 0), self.done, "monotonic", 8)
        b.store_atomic(helpers, self.seats, "monotonic", 8)
        if self.futex_nr is not None:  # where the caller runs (step_aside)
            getcpu = self.extern("sched_getcpu", ir.FunctionType(I32, []))
            self.store(b, b.call(getcpu, []), self.cpu, I32)
        old = b.load_atomic(self.word, "monotonic", 8, typ=I64)
        gen = b.add(b.lshr(old, _c(I64, 32)), _c(I64, 1))
        gen = b.and_(gen, _c(I64, 0xFFFFFFFF))
        gen = b.select(b.icmp_unsigned("==", gen, _c(I64, 0)), _c(I64, 1), gen)
        b.store_atomic(b.shl(gen, _c(I64, 32)), self.word, "seq_cst", 8)
        b.atomic_rmw("add", self.futex, _c(I32, 1), "seq_cst")
        asleep = b.load_atomic(self.sleepers, "seq_cst", 4, typ=I32)
        with b.if_then(b.icmp_signed(">", asleep, _c(I32, 0))):
            self.futex_call(b, WAKE_PRIVATE, _c(I64, MAX_WORKERS))
        b.call(self.claim, [gen])
        self.join(b, chunks)
        # close the job before the next one's fields are written: no late claim can pass
        b.store_atomic(
            b.or_(b.shl(gen, _c(I64, 32)), _c(I64, 0xFFFFFFFF)), self.word, "seq_cst", 8
        )
        b.store_atomic(_c(I32, 0), self.lock, "release", 4)

    def join(self, b, chunks) -> None:
        """Wait until every chunk is done (pause, then yield)."""
        f = b.function
        start = self.clock(b)
        head, wait, out = (
            f.append_basic_block(n) for n in ("join", "joinwait", "joined")
        )
        b.branch(head)
        b.position_at_end(head)
        done = b.load_atomic(self.done, "acquire", 8, typ=I64)
        b.cbranch(b.icmp_unsigned("<", done, chunks), wait, out)
        b.position_at_end(wait)
        self.relax(b, start)
        b.branch(head)
        b.position_at_end(out)
