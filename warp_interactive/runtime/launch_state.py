"""The one word the CPU launch fast paths check (no imports: every layer may report to it).

A fast launch (``fastlaunch.Plan.run``) and a recorded launch's replay (``Launch.launch``) skip
all validation, so they must step aside whenever something they took for granted changes:

* a *slow reason* is active: a tape records launches, a ``wp.timing`` recorder times them, a
  graph capture keeps them. Each site reports its reason with ``set_reason`` after it changes
  (idempotent: the state is recomputed from what it is told, never counted up and down).
* something they resolved went stale: a ``@wp.func`` was (re)defined, a module's kernels or
  options changed (``invalidate``). This bumps the epoch.

``fast[0]`` is the epoch while no slow reason is active and -1 otherwise. A plan is armed with
the value of ``fast[0]`` after a general launch went through (``armed()``; None while a reason is
active, which equals nothing), so its whole guard is one comparison ``fast[0] != plan.epoch``:
any invalidation disarms every plan until its kernel takes the general path once more, while a
slow reason only disarms them while it lasts. Replays compare ``epoch[0]`` instead: tapes,
recorders and captures do not change how a recorded launch runs.
"""

epoch = [0]
fast = [0]
_reasons = {}


def invalidate():
    """A @wp.func, a module's kernels, options or binaries changed: every plan re-validates."""
    epoch[0] += 1
    _publish()


def recheck():
    """A tape started watching its arrays (runtime/tape_watch.py): every plan takes the general
    path once more, where its launch is checked, then re-arms."""
    epoch[0] += 1
    _publish()


def set_reason(name, active):
    """Report whether the slow reason ``name`` ("tape", "timing", "capture") is active now."""
    if active:
        _reasons[name] = True
    else:
        _reasons.pop(name, None)
    _publish()


def slow_reasons():
    """The active slow reasons (for tests and messages)."""
    return sorted(_reasons)


def armed():
    """The value a plan that just passed the general path's checks may run with."""
    return None if _reasons else epoch[0]


def _publish():
    fast[0] = -1 if _reasons else epoch[0]
