"""One exception type per area, each message naming the config key or file at fault."""


class TailmemError(Exception):
    """Base class: every error the pipeline raises on purpose."""


class ConfigError(TailmemError):
    """A config value is missing or invalid; the message names the key."""


class ArtifactError(TailmemError):
    """An input artifact is missing, corrupt or of the wrong shape; the message names the file."""


class DataError(TailmemError):
    """A benchmark data file is missing or malformed; the message names the file."""


class LLMError(TailmemError):
    """A language-model call failed or is not allowed (budget, replay miss)."""


class ContextOverflow(LLMError):
    """A prompt that does not fit the model's context window (the client adds the stage). Callers that run many
    items catch it to lose one item, not the stage."""
