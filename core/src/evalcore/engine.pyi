# The public names of ``evalcore.engine``, each re-exported from the module that defines it;
# ``evalcore.engine`` reads this stub at import and imports each name on first use.

from evalcore._compat.engine import aggregate_all as aggregate_all
from evalcore._compat.engine import aggregate_metric_values as aggregate_metric_values
from evalcore._compat.engine import apply_metrics as apply_metrics
from evalcore._compat.engine import get_metric as get_metric
from evalcore._compat.engine import list_metrics as list_metrics
from evalcore._compat.engine import metric_keys as metric_keys
from evalcore._compat.engine import register_metric as register_metric
