# The public names of ``evalcore.http``, each re-exported from the module that defines it;
# ``evalcore.http`` reads this stub at import and imports each name on first use.

from evalcore._contract.http import AuthenticationError as AuthenticationError
from evalcore._contract.http import BackendError as BackendError
from evalcore._contract.http import BackendTimeout as BackendTimeout
from evalcore._contract.http import BackendUnreachable as BackendUnreachable
from evalcore._contract.http import ChatResult as ChatResult
from evalcore._contract.http import EmbeddingResult as EmbeddingResult
from evalcore._contract.http import MalformedResponse as MalformedResponse
from evalcore._contract.http import OpenAIClient as OpenAIClient
from evalcore._contract.http import Price as Price
from evalcore._contract.http import PriceTable as PriceTable
from evalcore._contract.http import RateLimited as RateLimited
from evalcore._contract.http import RequestRejected as RequestRejected
from evalcore._contract.http import ServerError as ServerError
from evalcore._contract.http import Usage as Usage
from evalcore._contract.http import estimate_tokens as estimate_tokens
from evalcore._contract.http import parse_retry_after as parse_retry_after
