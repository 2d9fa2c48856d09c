"""The opcode inventory (tests/bytecode/test_opcode_inventory.py) reads the handler table from
the source without importing capture (it runs without torch); this checks the reading against
the real table, so the inventory cannot drift from what the interpreter dispatches on."""
from __future__ import annotations

import sys

import autograph.capture.engine.api  # noqa: F401 - installs every value family's handlers
from autograph.capture.engine.interpreter import HANDLERS
from tests.bytecode.test_opcode_inventory import registered_handlers


def test_source_reading_of_handler_registrations_matches_the_live_table():
    assert registered_handlers(sys.version_info[:2]) == set(HANDLERS)
