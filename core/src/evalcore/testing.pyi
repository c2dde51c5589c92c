# The public names of ``evalcore.testing``, each re-exported from evalcore-pytest, which defines it;
# ``evalcore.testing`` reads this stub at import and imports each name on first use.

from evalcore_pytest.testing import Reply as Reply
from evalcore_pytest.testing import ScriptedServer as ScriptedServer
from evalcore_pytest.testing import assert_metric as assert_metric
from evalcore_pytest.testing import assert_no_regression as assert_no_regression
from evalcore_pytest.testing import compiled_part as compiled_part
from evalcore_pytest.testing import default_reply as default_reply
from evalcore_pytest.testing import heavy_modules_after_listing as heavy_modules_after_listing
from evalcore_pytest.testing import import_ragas as import_ragas
from evalcore_pytest.testing import modules_imported_by_listing as modules_imported_by_listing
from evalcore_pytest.testing import nested_list as nested_list
from evalcore_pytest.testing import requested_schema as requested_schema
from evalcore_pytest.testing import run_evalcore as run_evalcore
from evalcore_pytest.testing import run_without as run_without
from evalcore_pytest.testing import schema_instance as schema_instance
from evalcore_pytest.testing import silent_server as silent_server
from evalcore_pytest.testing import write_journal as write_journal
from evalcore_pytest.testing import write_records as write_records
