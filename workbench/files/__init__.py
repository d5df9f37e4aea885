"""Files the tool writes for the user (reports, packets, exports, case files): whole or not at all.

One rule for every file-writing command: fill a temporary sibling, flush it to disk, then rename it
into place. A fault (a full disk, a crash, a signal) leaves the previous file as it was, or nothing, never
half of one; a failure names the path the user asked for, not the temporary one. A folder's files are each
written so, and nothing in a folder that the workbench did not write is ever replaced or deleted (its
manifest: `folder.py`). Defaults for what the TUI proposes: `defaults.py`.
"""

from workbench.files.folder import FolderNotEmpty, FolderState, ForeignFile, folder_state, write_folder
from workbench.files.whole import WriteError, write_text, writing

__all__ = ["FolderNotEmpty", "FolderState", "ForeignFile", "WriteError", "folder_state", "write_folder",
           "write_text", "writing"]
