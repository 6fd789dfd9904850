"""Briefing fixtures: the calendar (a real Radicale with the fixture week), the weather stand-in
and the push receiver, shared with their own test folders."""

from __future__ import annotations

from tests.calendar.conftest import account, cal_settings, client, radicale
from tests.push.conftest import receiver
from tests.weather.test_weather import standin

__all__ = ["account", "cal_settings", "client", "radicale", "receiver", "standin"]
