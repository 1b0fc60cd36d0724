"""How many requests one client may make: a token bucket per client address.

Why: a people's table is shared, so one client sending requests as fast as it can would
slow every seat's game (each move is checked and played under the table's lock, and each
change is sent to every open page). A client may make ``rate`` requests a second on
average and ``burst`` at once; beyond that a 429 says how long to wait. The buckets of
clients that have been quiet long enough to be full again are forgotten, so the memory
they take stays bounded by the clients active in the last ``burst / rate`` seconds.
"""

from __future__ import annotations

import math
import time
from typing import Callable

from rummy_env.web.sessions import WebError


class RequestRate:
    """At most ``rate`` requests a second from one client on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        if not (0 < rate < math.inf) or burst < 1:
            raise ValueError(f"the request limit must be > 0 a second with bursts >= 1, got {rate} and {burst}")
        self.rate = float(rate)
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (requests left, when counted)

    def check(self, client: str) -> None:
        """Count one request of ``client``, or refuse it (429) when its bucket is empty."""
        now = self.clock()
        left, then = self._buckets.get(client, (float(self.burst), now))
        left = min(float(self.burst), left + (now - then) * self.rate)
        if left < 1:
            wait = (1 - left) / self.rate
            self._buckets[client] = (left, now)
            raise WebError(429, f"too many requests: at most {self.rate:g} a second from one client (bursts of "
                                f"{self.burst}); try again in {wait:.1f} s")
        self._buckets[client] = (left - 1, now)
        if len(self._buckets) > 1000:
            self._forget(now)

    def _forget(self, now: float) -> None:
        full = self.burst / self.rate
        for client, (_, then) in list(self._buckets.items()):
            if now - then >= full:
                del self._buckets[client]
