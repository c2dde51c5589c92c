# The public names of ``evalcore.dspy``, each re-exported from the module that defines it;
# ``evalcore.dspy`` reads this stub at import and imports each name on first use.

from evalcore_dropins.dspy import Evaluate as Evaluate
from evalcore_dropins.programs import as_program as as_program
from evalcore_dropins.programs import is_dspy_module as is_dspy_module
