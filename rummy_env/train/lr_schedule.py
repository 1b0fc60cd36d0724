"""The learning rate's linear decay (``anneal_lr``), and how it goes on when a resumed run
is given another ``total_updates``. The trainer of every game (``train.ppo``) uses it.

The rate is a straight line, ``Line(start, rate, end)``: update ``u`` (counted from 0)
trains at ``rate * (1 - (u - start) / (end - start))``, so ``rate`` at update ``start``
and 0 at ``end``. A run starts on ``Line(0, lr, total_updates)``: ``lr * (1 - u /
total_updates)``. The line is kept in the checkpoint.

When ``--resume`` changes ``total_updates`` after ``k`` updates (k > 0), the new line
runs from the rate of the last update done, ``k - 1``, to 0 at the new total:
``Line(k - 1, rate of update k - 1, new total)``. Why: redrawing the whole line from
``lr`` to the new total would make the rate jump at the resume (a finished run of 6
updates at ``lr`` 5e-4 trained its last update at 8.3e-5 and, extended to 10, would train
the next at 2.0e-4, a step up in the middle of fine-tuning); this way the rate only falls.
An extension whose rate has reached 0 by the old line's end still trains: the last
update's rate is ``lr / total_updates``, not 0. A resume that leaves ``total_updates`` as
it was keeps the line, so it continues exactly as if never stopped.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence


class Line(NamedTuple):
    """The rate falls in a straight line from ``rate`` at update ``start`` to 0 at update ``end``."""

    start: int
    rate: float
    end: int

    def at(self, update: int) -> float:
        """The learning rate of ``update`` (counted from 0)."""
        return self.rate * (1.0 - (update - self.start) / (self.end - self.start))

    def resumed(self, done: int, total_updates: int) -> "Line":
        """The line after a resume that has ``done`` updates behind it and runs to ``total_updates``."""
        if total_updates == self.end:
            return self
        if done == 0:
            return Line(self.start, self.rate, total_updates)
        if total_updates <= done:  # nothing is left to train: the line stays as it was
            return self
        return Line(done - 1, self.at(done - 1), total_updates)


def from_checkpoint(saved: Sequence[float] | None, lr: float, saved_total_updates: int) -> Line:
    """The line a checkpoint holds; a checkpoint written before lines were kept ran on ``Line(0, lr, total)``."""
    if saved is None:
        return Line(0, lr, saved_total_updates)
    start, rate, end = saved
    return Line(int(start), float(rate), int(end))
