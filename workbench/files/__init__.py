"""Files the tool writes for the user (reports, packets, exports, case files): whole or not at all.

One rule for every file-writing command: fill a temporary sibling, flush it to disk, then rename it
into place. A fault (a full disk, a crash, a signal) leaves the previous file or folder as it was, or
nothing, never half of one; a failure names the path the user asked for, not the temporary one.
"""

from workbench.files.folder import write_folder
from workbench.files.whole import WriteError, write_text, writing

__all__ = ["WriteError", "write_folder", "write_text", "writing"]
