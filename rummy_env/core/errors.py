"""The errors every game raises alike, in a module of their own: the game interface
(``rummy_env.core.game``) re-exports them, and modules it builds on (the engines of
``rummy_env.core.vector_states``) raise them without importing it."""


class IllegalActionError(ValueError):
    """An action that is not legal in the current state (every game raises this one)."""
