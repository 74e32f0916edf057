"""Hypothesis run sizes: `HYPOTHESIS_PROFILE` picks `fast` (default), `ci` or `long`."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

for _name, _examples in (("fast", 150), ("ci", 1_000), ("long", 10_000)):
    settings.register_profile(
        _name,
        max_examples=_examples,
        deadline=None,  # speed is measured in benchmarks/, not here
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
FUZZ = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))
