# The public names of ``evalcore.testkit``, each re-exported from evalcore-pytest, which defines it;
# ``evalcore.testkit`` reads this stub at import and imports each name on first use.

from evalcore_pytest.testkit import ComponentConformance as ComponentConformance
from evalcore_pytest.testkit import PluginConformance as PluginConformance
