# The public names of ``evalcore.engine``, each re-exported from the module that defines it;
# ``evalcore.engine`` reads this stub at import and imports each name on first use.

from evalcore_dropins.engine import aggregate_all as aggregate_all
from evalcore_dropins.engine import aggregate_metric_values as aggregate_metric_values
from evalcore_dropins.engine import apply_metrics as apply_metrics
from evalcore_dropins.engine import get_metric as get_metric
from evalcore_dropins.engine import list_metrics as list_metrics
from evalcore_dropins.engine import metric_keys as metric_keys
from evalcore_dropins.engine import register_metric as register_metric
