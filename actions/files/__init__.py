"""The workspace's files as git sees them: listing, ignore rules, a safe git environment.

Used by the tools (``list_files``, ``search_files``), the index (which files it covers) and
the checkpoint store (which paths it refuses); it imports none of them.

Modules (each imports only those below it):
    listing   the file paths of a folder: ``git ls-files`` in a work tree, else a walk
              honouring .gitignore; ``SKIP_DIRS``, the noise folders left out
    ignore    the one gitignore matcher (a folder tree's .gitignore files; a repository's
              full rules for the checkpoint store)
    gitenv    running git without the user's GIT_* variables redirecting it
"""
