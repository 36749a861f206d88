"""
The Python SDK: the ``det`` CLI's abilities as Python objects.

.. code:: python

   from determined.experimental import client

   # Unneeded after `det user login`, or with DET_MASTER / DET_USER / DET_PASS set:
   # client.login(master=..., user=..., password=...)
   exp = client.create_experiment(config="my_config.yaml", model_dir=".")
   print(f"started experiment {exp.id}")
   state = exp.wait()
   best = exp.list_checkpoints(max_results=1)[0]
   path = best.download()

The module-level functions use one default ``Determined``, created by ``login()`` or, on first
use, from the environment (``DET_MASTER``, ``DET_USER``, ``DET_PASS``, ``DET_USER_TOKEN``) and
the CLI's cached login. To talk to several masters, or as several users, create ``Determined``
objects: they have the same methods.
"""

import functools
import pathlib
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, TypeVar, Union, cast

from determined.common import experimental as _objects
from determined.common.api import Session
# The SDK's objects (Experiment, Trial, Checkpoint, ...), one list of them: the package's __all__.
from determined.common.experimental import *  # noqa: F401,F403
from determined.common.experimental import (Checkpoint, Determined, Experiment, ExperimentState, Model,
                                           ModelSortBy, OrderBy, Project, TrainingMetrics, Trial, TrialMetrics,
                                           User, ValidationMetrics, Workspace)

_determined: Optional[Determined] = None

F = TypeVar("F", bound=Callable[..., Any])


def _require_singleton(fn: F) -> F:
    @functools.wraps(fn)
    def _fn(*args: Any, **kwargs: Any) -> Any:
        global _determined
        if _determined is None:
            _determined = Determined()
        return fn(*args, **kwargs)

    return cast(F, _fn)


def _default() -> Determined:
    assert _determined is not None
    return _determined


def login(
    master: Optional[str] = None,
    user: Optional[str] = None,
    password: Optional[str] = None,
    cert_path: Optional[str] = None,
    cert_name: Optional[str] = None,
    noverify: bool = False,
) -> None:
    """
    Sets up the default ``Determined`` the module's functions use (see ``Determined`` for the
    arguments). Often unneeded: without it, the first call logs in from the environment and
    the CLI's cached login.
    """
    global _determined
    _determined = Determined(master, user, password, cert_path, cert_name, noverify)


@_require_singleton
def logout() -> None:
    """Logs the default session out; the next call logs in again from the environment."""
    global _determined
    _default().logout()
    _determined = None


@_require_singleton
def whoami() -> User:
    return _default().whoami()


@_require_singleton
def get_session_username() -> str:
    return _default().get_session_username()


@_require_singleton
def create_user(username: str, admin: bool = False, password: Optional[str] = None,
                remote: bool = False) -> User:
    return _default().create_user(username, admin, password, remote)


@_require_singleton
def get_user_by_id(user_id: int) -> User:
    return _default().get_user_by_id(user_id)


@_require_singleton
def get_user_by_name(user_name: str) -> User:
    return _default().get_user_by_name(user_name)


@_require_singleton
def list_users(active: Optional[bool] = None) -> List[User]:
    return _default().list_users(active=active)


@_require_singleton
def get_workspace(name: str) -> Workspace:
    return _default().get_workspace(name)


@_require_singleton
def list_workspaces() -> List[Workspace]:
    return _default().list_workspaces()


@_require_singleton
def create_workspace(name: str) -> Workspace:
    return _default().create_workspace(name)


@_require_singleton
def delete_workspace(name: str) -> None:
    _default().delete_workspace(name)


@_require_singleton
def get_project(project_id: int) -> Project:
    return _default().get_project(project_id)


@_require_singleton
def create_experiment(
    config: Union[str, pathlib.Path, Dict[str, Any]],
    model_dir: Optional[Union[str, pathlib.Path]] = None,
    includes: Optional[Iterable[Union[str, pathlib.Path]]] = None,
    parent_id: Optional[int] = None,
    project_id: Optional[int] = None,
    template: Optional[str] = None,
) -> Experiment:
    """Creates an experiment from a config (a dict, a YAML file's path, or YAML text) and a
    model directory; see ``Determined.create_experiment``."""
    return _default().create_experiment(config, model_dir, includes, parent_id, project_id,
                                        template)


@_require_singleton
def get_experiment(experiment_id: int) -> Experiment:
    return _default().get_experiment(experiment_id)


@_require_singleton
def list_experiments(
    sort_by: Optional[ExperimentSortBy] = None,
    order_by: Optional[OrderBy] = None,
    experiment_ids: Optional[List[int]] = None,
    labels: Optional[List[str]] = None,
    users: Optional[List[str]] = None,
    states: Optional[List[ExperimentState]] = None,
    name: Optional[str] = None,
    project_id: Optional[int] = None,
) -> List[Experiment]:
    return _default().list_experiments(sort_by, order_by, experiment_ids, labels, users, states,
                                       name, project_id)


@_require_singleton
def get_trial(trial_id: int) -> Trial:
    return _default().get_trial(trial_id)


@_require_singleton
def get_checkpoint(uuid: str) -> Checkpoint:
    return _default().get_checkpoint(uuid)


@_require_singleton
def create_model(name: str, description: Optional[str] = "", metadata: Optional[Dict[str, Any]] = None,
                 labels: Optional[List[str]] = None, notes: Optional[str] = "",
                 workspace_name: Optional[str] = None) -> Model:
    return _default().create_model(name, description, metadata, labels, notes, workspace_name)


@_require_singleton
def get_model(identifier: Union[str, int]) -> Model:
    return _default().get_model(identifier)


@_require_singleton
def get_model_by_id(model_id: int) -> Model:
    return _default().get_model_by_id(model_id)


@_require_singleton
def list_models(sort_by: ModelSortBy = ModelSortBy.NAME, order_by: OrderBy = OrderBy.ASCENDING,
                name: Optional[str] = "", description: Optional[str] = "", model_id: Optional[int] = None,
                workspace_names: Optional[List[str]] = None,
                workspace_ids: Optional[List[int]] = None) -> List[Model]:
    return _default().list_models(sort_by, order_by, name, description, model_id, workspace_names, workspace_ids)


@_require_singleton
def get_model_labels() -> List[str]:
    return _default().get_model_labels()


@_require_singleton
def iter_trials_metrics(trial_ids: List[int], group: str) -> Iterator[TrialMetrics]:
    return _default().iter_trials_metrics(trial_ids, group)


@_require_singleton
def stream_trials_metrics(trial_ids: List[int], group: str) -> Iterator[TrialMetrics]:
    return _default().stream_trials_metrics(trial_ids, group)


@_require_singleton
def stream_trials_training_metrics(trial_ids: List[int]) -> Iterator[TrainingMetrics]:
    return _default().stream_trials_training_metrics(trial_ids)


@_require_singleton
def stream_trials_validation_metrics(trial_ids: List[int]) -> Iterator[ValidationMetrics]:
    return _default().stream_trials_validation_metrics(trial_ids)


__all__ = [
    *_objects.__all__, "Session",
    "create_experiment", "create_model", "create_user", "get_checkpoint", "get_experiment", "get_model",
    "get_model_by_id", "get_model_labels", "get_session_username", "get_trial", "get_user_by_id",
    "get_user_by_name", "iter_trials_metrics", "list_experiments", "list_models", "list_users", "login", "logout", "stream_trials_metrics", "stream_trials_training_metrics",
    "stream_trials_validation_metrics", "whoami",
]
