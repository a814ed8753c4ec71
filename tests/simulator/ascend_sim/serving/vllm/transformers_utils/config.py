"""Reading a model directory the way vLLM does before anything is loaded."""
import glob
import json
import os

HF_CONFIG_NAME = "config.json"
MISTRAL_CONFIG_NAME = "params.json"

# Keys vLLM consults, in this order, to derive the context length from config.json.
_MAX_LEN_KEYS = (
    "max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
    "max_sequence_length", "max_seq_length", "seq_len",
)


def _invalid_model_message(model):
    return (
        "Invalid repository ID or local directory specified:"
        " '{model}'.\nPlease verify the following requirements:\n"
        "1. Provide a valid Hugging Face repository ID.\n"
        "2. Specify a local directory that contains a recognized "
        "configuration file.\n"
        "   - For Hugging Face models: ensure the presence of a "
        "'config.json'.\n"
        "   - For Mistral models: ensure the presence of a "
        "'params.json'.\n"
        "3. For GGUF: pass the local path of the GGUF checkpoint.\n"
        "   Loading GGUF from a remote repo directly is not yet "
        "supported.\n"
    ).format(model=model)


def file_or_path_exists(model, config_name):
    return os.path.isfile(os.path.join(model, config_name))


def get_config(model):
    """Return config.json of *model* as a dict, failing like vLLM when it is absent."""
    try:
        if not file_or_path_exists(model, HF_CONFIG_NAME):
            raise ValueError(
                "Could not detect config format for no config file found. "
                "With config_format 'auto', ensure your model has either "
                "config.json (HF format) or params.json (Mistral format). "
                "Otherwise please specify your_custom_config_format "
                "in engine args for customized config parser.")
    except Exception as e:
        raise ValueError(_invalid_model_message(model)) from e
    path = os.path.join(model, HF_CONFIG_NAME)
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except ValueError as e:
        raise OSError(
            f"It looks like the config file at '{path}' is not a valid JSON file.") from e


def derived_max_model_len(hf_config):
    """(key, value) giving the model's own context limit, or (None, None)."""
    for key in _MAX_LEN_KEYS:
        value = hf_config.get(key)
        if isinstance(value, int) and value > 0:
            return key, value
    return None, None


def weight_files(model):
    files = []
    for pattern in ("*.safetensors", "*.bin", "*.pt"):
        files.extend(glob.glob(os.path.join(model, pattern)))
    return sorted(f for f in files if not f.endswith("training_args.bin"))


def read_json_if_present(model, name):
    path = os.path.join(model, name)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None
