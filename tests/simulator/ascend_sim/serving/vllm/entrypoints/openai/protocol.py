"""Response objects of the OpenAI-compatible API, shaped as vLLM returns them."""
import time

from vllm.utils import random_uuid
from vllm.version import at_least


class RequestError(Exception):
    def __init__(self, message, err_type="BadRequestError", code=400, param=None):
        super().__init__(message)
        self.message = message
        self.err_type = err_type
        self.code = code
        self.param = param


def validation_error(loc, msg, err_type, value):
    """A request body that does not fit the schema (FastAPI/pydantic wording)."""
    detail = [{"type": err_type, "loc": ("body",) + tuple(loc), "msg": msg, "input": value}]
    return RequestError(str(detail), err_type="Bad Request", code=400)


def error_body(message, err_type="BadRequestError", code=400, param=None):
    """vLLM >= 0.10.2 nests the error as OpenAI does; older releases return it flat."""
    if at_least(0, 10, 2):
        return {"error": {"message": message, "type": err_type, "param": param, "code": code}}
    return {"object": "error", "message": message, "type": err_type, "param": param,
            "code": code}


def model_card(name, root, max_model_len, created=None):
    created = int(time.time()) if created is None else created
    return {
        "id": name,
        "object": "model",
        "created": created,
        "owned_by": "vllm",
        "root": root,
        "parent": None,
        "max_model_len": max_model_len,
        "permission": [{
            "id": f"modelperm-{random_uuid()}",
            "object": "model_permission",
            "created": created,
            "allow_create_engine": False,
            "allow_sampling": True,
            "allow_logprobs": True,
            "allow_search_indices": False,
            "allow_view": True,
            "allow_fine_tuning": False,
            "organization": "*",
            "group": None,
            "is_blocking": False,
        }],
    }


def usage(prompt_tokens, completion_tokens):
    return {"prompt_tokens": prompt_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "completion_tokens": completion_tokens,
            "prompt_tokens_details": None}
