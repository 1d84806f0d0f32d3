"""Tools the model can call: manifests (data), implementations (behaviour), the registry.

``default_registry(workspace)`` registers the built-ins ``list_files`` and ``read_file``.
"""

from __future__ import annotations

from actions.paths import Workspace
from actions.tools import list_files, read_file
from actions.tools.base import Tool, ToolImplementation, ToolResult
from actions.tools.list_files import ListFiles, ListFilesConfig
from actions.tools.read_file import ReadFile, ReadFileConfig
from actions.tools.registry import ToolRegistry

__all__ = [
    "ListFiles",
    "ListFilesConfig",
    "ReadFile",
    "ReadFileConfig",
    "Tool",
    "ToolImplementation",
    "ToolRegistry",
    "ToolResult",
    "default_registry",
]


def default_registry(
    workspace: Workspace,
    *,
    list_config: ListFilesConfig | None = None,
    read_config: ReadFileConfig | None = None,
) -> ToolRegistry:
    """A registry with the built-in tools bound to ``workspace``."""
    registry = ToolRegistry()
    registry.register(list_files.MANIFEST, ListFiles(workspace, list_config))
    registry.register(read_file.MANIFEST, ReadFile(workspace, read_config))
    return registry
