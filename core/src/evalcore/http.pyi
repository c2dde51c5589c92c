# The public names of ``evalcore.http``, each re-exported from the module that defines it;
# ``evalcore.http`` reads this stub at import and imports each name on first use. They are
# evalcore-http's (``pip install evalcore-http``).

from evalcore_http.client import ChatResult as ChatResult
from evalcore_http.client import EmbeddingResult as EmbeddingResult
from evalcore_http.client import OpenAIClient as OpenAIClient
from evalcore_http.client import parse_retry_after as parse_retry_after
from evalcore_http.client import run_client as run_client
from evalcore_http.errors import AuthenticationError as AuthenticationError
from evalcore_http.errors import BackendError as BackendError
from evalcore_http.errors import BackendTimeout as BackendTimeout
from evalcore_http.errors import BackendUnreachable as BackendUnreachable
from evalcore_http.errors import MalformedResponse as MalformedResponse
from evalcore_http.errors import RateLimited as RateLimited
from evalcore_http.errors import RequestRejected as RequestRejected
from evalcore_http.errors import ServerError as ServerError
from evalcore_http.prices import Price as Price
from evalcore_http.prices import PriceTable as PriceTable
from evalcore_http.prices import Usage as Usage
from evalcore_http.prices import estimate_tokens as estimate_tokens
from evalcore_http.prices import run_prices as run_prices
