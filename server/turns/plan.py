"""The plan steps of a turn: open a plan, apply one file of it, commit it at the end of the
turn, roll it back when the turn fails (SPEC §2.5, multi-file plans)."""

from __future__ import annotations

import asyncio

from actions.apply import ApplyRefused
from actions.checkpoints.types import CheckpointError
from actions.errors import ActionError, WriteFailed
from actions.plans import PlanFiles, PlanRun
from actions.prompt import render_plan_progress
from actions.schema import ContinueMultiFile, FileOp, StartMultiFile
from server.protocol import ErrorProgress, FileApplied, PlanProgress, PlanSummary
from server.turns.turn import AgentError, DocumentOutcome, Turn, report_error, retry


async def apply_plan_document(
    turn: Turn, action: StartMultiFile | ContinueMultiFile
) -> DocumentOutcome:
    """Apply the document's file to the plan (starting it first for start_multi_file)."""
    plans = turn.agent.plans
    if plans is None:
        return refused(turn, "no workspace folder is open, so files cannot be edited")
    op = await open_plan(turn, plans, action)
    if isinstance(op, str):
        return DocumentOutcome("error", op)
    if turn.plan is None:
        return refused(
            turn, "continue_multi_file without a plan: start with start_multi_file first"
        )
    if not turn.plan.remaining and plans.already_applied(turn.plan, op):
        turn.done = True  # the plan is complete and the model repeats its last file: done
        return DocumentOutcome("plan")
    plan = turn.plan
    try:
        path = await plans.apply(plan, op)
    except ApplyRefused as error:
        raise AgentError(f"the plan was rolled back: {error}") from None
    except WriteFailed as error:  # disk full...: telling the model would not help
        raise nothing_changed(error) from None
    except (ActionError, CheckpointError) as error:
        turn.sink.emit(ErrorProgress(message=str(error), path=op.path))
        progress = render_plan_progress(plan.applied, plan.remaining, turn.agent.staging)
        message = f"{op.action} {op.path} was refused, nothing was written: {error}\n{progress}"
        return DocumentOutcome("refused", message)
    turn.sink.emit(
        FileApplied(path=path, action=op.action, message=action.message, planned=path in plan.files)
    )
    return DocumentOutcome(
        "plan", render_plan_progress(plan.applied, plan.remaining, turn.agent.staging)
    )


def refused(turn: Turn, message: str) -> DocumentOutcome:
    """A plan document that cannot be used as sent (counts as an invalid document)."""
    return DocumentOutcome("error", report_error(turn, message))


async def abandon_plan(turn: Turn, failure: BaseException) -> None:
    """Roll back the plan in progress (if any) and tell the user."""
    plan = turn.plan
    if plan is None or turn.agent.plans is None or plan.recorder.closed:
        return
    restored = await turn.agent.plans.rollback(plan)
    why = "cancelled" if isinstance(failure, asyncio.CancelledError) else "failed"
    turn.sink.emit(
        ErrorProgress(
            message=f"the turn {why}: the plan was rolled back ({len(restored)} file(s) restored)",
            rolled_back=restored,
        )
    )


async def open_plan(
    turn: Turn, plans: PlanFiles, action: StartMultiFile | ContinueMultiFile
) -> FileOp | str:
    """The document's file operation, starting its plan first if it opens one (a string: the
    refusal to send back to the model)."""
    if isinstance(action, ContinueMultiFile):
        return action.next_file
    if turn.plan is not None:
        await finish_plan(turn)
    try:
        turn.plan = await plans.start(
            action.plan.description, action.plan.files_to_modify, turn.session_id
        )
    except WriteFailed as error:
        raise nothing_changed(error) from None
    except (ActionError, CheckpointError) as error:
        return retry(turn, f"The plan was refused, nothing was applied: {error}")
    turn.sink.emit(PlanProgress(description=turn.plan.description, files=list(turn.plan.files)))
    return action.first_file


async def finish_plan(turn: Turn) -> str | None:
    """Commit the plan in progress (if any); its checkpoint id."""
    if turn.plan is None or turn.agent.plans is None or turn.plan.recorder.closed:
        return None
    try:
        return await turn.agent.plans.commit(turn.plan)
    except WriteFailed as error:  # the turn fails: abandon_plan restores every file
        raise nothing_changed(error) from None


def nothing_changed(error: WriteFailed) -> AgentError:
    """The turn's failure when a write was refused (disk full...): what, where, and that
    the workspace is as it was (the plan in progress is rolled back as the turn fails)."""
    return AgentError(f"{error}; nothing was changed: the plan was rolled back")


def plan_summary(plan: PlanRun) -> PlanSummary:
    """The plan as the turn's result reports it."""
    return PlanSummary(
        description=plan.description,
        files=list(plan.files),
        applied=list(plan.applied),
        skipped=plan.remaining,
        unplanned=list(plan.unplanned),
    )
