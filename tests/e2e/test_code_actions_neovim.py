"""AI code actions from a real headless Neovim: the user's keymaps, Neovim's own resolve."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.neovim import needs_neovim, run_neovim
from tests.e2e.test_code_actions import CALC, FIXED, plan_updating
from tests.fakellm import FakeLLM, last_user_message

SCRIPT = Path(__file__).with_name("nvim_code_action.lua")
DOCUMENTED = FIXED.replace(
    "def mul(a, b):\n", 'def mul(a, b):\n    """The product of a and b."""\n'
)
EXPLANATION = "add() takes two numbers and returns their sum."

pytestmark = needs_neovim


def test_fix_explain_and_docstrings_from_neovim(fakellm: FakeLLM, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    calc = workspace / "src" / "calc.py"
    calc.write_text(CALC)
    fakellm.set_script(
        {
            "replies": [
                *plan_updating("/src/calc.py", FIXED, "add() now adds."),
                EXPLANATION,
                *plan_updating("/src/calc.py", DOCUMENTED, "Documented mul()."),
            ]
        }
    )
    problem = {
        "range": {"start": {"line": 4, "character": 4}, "end": {"line": 4, "character": 16}},
        "message": "add() subtracts",
        "source": "mylint",
    }
    steps = [
        {"title": "Ask AI to fix: add() subtracts", "cursor": [5, 0], "diagnostics": [problem]},
        {"title": "Explain", "selection": [4, 0, 5, 15]},
        {"title": "Add docstrings", "selection": [8, 0, 9, 15]},
    ]

    seen = run_neovim(SCRIPT, tmp_path, workspace, fakellm, calc, STEPS=json.dumps(steps))

    assert seen["errors"] == [], seen
    fix, explain, docstrings = seen["steps"]
    assert all(step["chosen"] and step["finished"] for step in seen["steps"]), seen
    assert fix["offered"] == ["Ask AI to fix: add() subtracts"]
    assert explain["offered"] == ["Rewrite with AI…", "Explain", "Add docstrings", "Write tests"]
    # The fix: on disk and in Neovim's buffer, applied by Neovim itself through applyEdit.
    assert fix["buffer"] == FIXED
    # Explain: Neovim ran the resolved agent.chat command; the server showed the answer.
    messages = [m["message"] for m in seen["messages"]]
    assert any(EXPLANATION in m for m in messages), messages
    assert explain["buffer"] == FIXED
    asked = [last_user_message(r) for r in fakellm.requests]
    explain_question = next(a for a in asked if a.startswith("Explain"))
    assert "def add(a, b):\n    return a + b" in explain_question
    # Docstrings: on the file as the fix left it.
    assert docstrings["buffer"] == DOCUMENTED
    assert calc.read_text() == DOCUMENTED
    assert seen["edits"] == 2
    assert any("changed src/calc.py" in m for m in messages), messages
