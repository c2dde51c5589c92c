# The public names of ``evalcore.judge``, each re-exported from the module that defines it;
# ``evalcore.judge`` reads this stub at import and imports each name on first use.

from evalcore_stats.calibrate import Calibration as Calibration
from evalcore_stats.calibrate import calibrate as calibrate
from evalcore_stats.calibrate import cohen_kappa as cohen_kappa
from evalcore_stats.calibrate import confusion_matrix as confusion_matrix
from evalcore_stats.labels import read_labels as read_labels
