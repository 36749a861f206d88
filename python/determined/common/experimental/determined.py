"""``Determined``: one logged-in connection to a master, and the SDK's entry points."""

import itertools
import logging
import os
import pathlib
import warnings
from typing import Any, Dict, Iterable, Iterator, List, Optional, Union

import yaml

from determined.common import api, context
from determined.common.api import authentication
from determined.common.experimental import (checkpoint, experiment, metrics, model, project, trial, user,
                                           workspace)
from determined.common.experimental._util import OrderBy

logger = logging.getLogger("determined.client")

# What upstream's clients print for CreateExperimentResponse.warnings.
_LAUNCH_WARNINGS = {
    "LAUNCH_WARNING_CURRENT_SLOTS_EXCEEDED":
        "The requested job requires more slots than currently available. You may need to "
        "increase cluster resources in order for the job to run.",
}


def _cert(cert_path: Optional[str], noverify: bool) -> Union[bool, str, None]:
    if noverify:
        return False
    path = cert_path or os.environ.get("DET_MASTER_CERT_FILE")
    if path == "noverify":
        return False
    return path or None


class Determined:
    """
    A connection to a master, logged in as one user. Its methods are the SDK's entry points
    (``client.<method>`` calls the same method of a default ``Determined``).

    Arguments:
        master: the master's URL (default ``$DET_MASTER``, else ``$DET_MASTER_ADDR``, else
            ``localhost:8080``).
        user: the user to log in as (default ``$DET_USER``, else the user of ``det user
            login``, else ``determined``).
        password: the user's password (default ``$DET_PASS``, else a token cached by ``det
            user login`` or an earlier SDK login, else blank).
        cert_path: a PEM certificate to verify the master's TLS certificate with.
        cert_name: accepted for upstream's signature; the URL's host name is verified.
        noverify: do not verify the master's TLS certificate.
    """

    def __init__(self, master: Optional[str] = None, user: Optional[str] = None,
                 password: Optional[str] = None, cert_path: Optional[str] = None,
                 cert_name: Optional[str] = None, noverify: bool = False) -> None:
        self._master = api.canonicalize_master_url(master or api.get_default_master_url())
        self._session = authentication.login_with_cache(
            self._master, user, password, _cert(cert_path, noverify))

    @classmethod
    def _from_session(cls, session: api.Session) -> "Determined":
        d = cls.__new__(cls)
        d._master = session.master
        d._session = session
        return d

    # --- users ---

    def whoami(self) -> user.User:
        return user.User._from_json(self._session.get("/api/v1/me")["user"], self._session)

    def get_session_username(self) -> str:
        return self._session.username

    def logout(self) -> None:
        """Ends this session on the master and forgets its cached token."""
        authentication.logout(self._session)

    def create_user(self, username: str, admin: bool = False, password: Optional[str] = None,
                    remote: bool = False) -> user.User:
        body: Dict[str, Any] = {
            "user": {"username": username, "admin": admin, "active": True, "remote": remote},
            "isHashed": True,
        }
        if password is not None:
            body["password"] = authentication.salt_and_hash(password)
        return user.User._from_json(self._session.post("/api/v1/users", body=body)["user"],
                                    self._session)

    def get_user_by_id(self, user_id: int) -> user.User:
        return user.User._from_json(self._session.get(f"/api/v1/users/{user_id}")["user"],
                                    self._session)

    def get_user_by_name(self, user_name: str) -> user.User:
        resp = self._session.get(f"/api/v1/users/{user_name}/by-username")
        return user.User._from_json(resp["user"], self._session)

    def list_users(self, active: Optional[bool] = None) -> List[user.User]:
        def page(offset: int) -> Dict[str, Any]:
            return self._session.get("/api/v1/users", params={"offset": offset, "active": active})

        found = [user.User._from_json(u, self._session)
                 for r in api.read_paginated(page) for u in r.get("users") or []]
        # A master that ignores the filter still gets the asked-for users only.
        return [u for u in found if active is None or u.active == active]

    # --- workspaces and projects ---

    def get_workspace(self, name: str) -> workspace.Workspace:
        """The workspace named ``name``; NotFoundException when there is none."""
        return workspace.Workspace._from_json(workspace._find(self._session, name), self._session)

    def list_workspaces(self) -> List[workspace.Workspace]:
        def page(offset: int) -> Dict[str, Any]:
            return self._session.get("/api/v1/workspaces", params={"offset": offset})

        return [workspace.Workspace._from_json(w, self._session)
                for r in api.read_paginated(page) for w in r.get("workspaces") or []]

    def create_workspace(self, name: str) -> workspace.Workspace:
        resp = self._session.post("/api/v1/workspaces", body={"name": name})
        return workspace.Workspace._from_json(resp["workspace"], self._session)

    def delete_workspace(self, name: str) -> None:
        self._session.delete(f"/api/v1/workspaces/{self.get_workspace(name).id}")

    def get_project(self, project_id: int) -> project.Project:
        """The project with this ID (by name: ``get_workspace(...).get_project(name)``)."""
        resp = self._session.get(f"/api/v1/projects/{project_id}")
        return project.Project._from_json(resp["project"], self._session)

    # --- experiments ---

    def create_experiment(
        self,
        config: Union[str, pathlib.Path, Dict[str, Any]],
        model_dir: Optional[Union[str, pathlib.Path]] = None,
        includes: Optional[Iterable[Union[str, pathlib.Path]]] = None,
        parent_id: Optional[int] = None,
        project_id: Optional[int] = None,
        template: Optional[str] = None,
    ) -> experiment.Experiment:
        """
        Creates (and activates) an experiment and returns it.

        Arguments:
            config: the experiment config: a dict, a path to a YAML file, or YAML text.
            model_dir: the directory to send as the model definition (as ``det experiment
                create CONFIG DIR`` does, ``.detignore`` honored).
            includes: more files or directories to send beside it (each under its own name).
            parent_id: the experiment this one is forked from.
            project_id: the project to create it in.
            template: the name of a config template to merge in.
        """
        if isinstance(config, dict):
            config_text = yaml.safe_dump(config, default_flow_style=False)
        elif isinstance(config, pathlib.Path) or (
                isinstance(config, str) and "\n" not in config and pathlib.Path(config).is_file()):
            config_text = pathlib.Path(config).read_text()
            yaml.safe_load(config_text)  # a malformed file is named here, not by the master
        elif isinstance(config, str):
            parsed = yaml.safe_load(config)
            if not isinstance(parsed, dict):
                raise ValueError(f"config: {config!r} is neither a config file nor a YAML mapping")
            config_text = config
        else:
            raise ValueError("config must be a dict, a path to a YAML file, or YAML text")

        body: Dict[str, Any] = {"config": config_text, "activate": True}
        if model_dir is not None or includes:
            body["modelDefinition"] = context.read_v1_context(
                pathlib.Path(model_dir) if model_dir is not None else None,
                [pathlib.Path(i) for i in includes or []])
        if parent_id is not None:
            body["parentId"] = parent_id
        if project_id is not None:
            body["projectId"] = project_id
        if template is not None:
            body["template"] = template
        resp = self._session.post("/api/v1/experiments", body=body)
        for w in resp.get("warnings") or []:
            logger.warning(_LAUNCH_WARNINGS.get(w, str(w)))
        return experiment.Experiment._from_json(resp["experiment"], self._session,
                                                resp.get("config"))

    def get_experiment(self, experiment_id: int) -> experiment.Experiment:
        resp = self._session.get(f"/api/v1/experiments/{experiment_id}")
        return experiment.Experiment._from_json(resp["experiment"], self._session,
                                                resp.get("config"))

    def list_experiments(
        self,
        sort_by: Optional[experiment.ExperimentSortBy] = None,
        order_by: Optional[OrderBy] = None,
        experiment_ids: Optional[List[int]] = None,
        labels: Optional[List[str]] = None,
        users: Optional[List[str]] = None,
        states: Optional[List[experiment.ExperimentState]] = None,
        name: Optional[str] = None,
        project_id: Optional[int] = None,
    ) -> List[experiment.Experiment]:
        """
        Experiments matching every given filter: ``experiment_ids``, ``labels`` (any of them),
        ``users`` (usernames), ``states``, ``name`` (contained in the name), ``project_id``;
        sorted by ``sort_by`` in ``order_by`` order.
        """
        def page(offset: int) -> Dict[str, Any]:
            return self._session.get("/api/v1/experiments", params={
                "sortBy": sort_by, "orderBy": order_by, "offset": offset,
                "experimentIdFilter.incl": experiment_ids, "labels": labels, "users": users,
                "states": states, "name": name, "projectId": project_id})

        found = itertools.chain.from_iterable(
            r.get("experiments") or [] for r in api.read_paginated(page))
        out = [experiment.Experiment._from_json(e, self._session) for e in found]
        if experiment_ids is not None:  # whether or not the master applied the filter
            wanted = set(experiment_ids)
            out = [e for e in out if e.id in wanted]
        if project_id is not None:
            out = [e for e in out if e.project_id in (None, project_id)]
        return out

    # --- trials and checkpoints ---

    def get_trial(self, trial_id: int) -> trial.Trial:
        return trial.Trial._from_json(self._session.get(f"/api/v1/trials/{trial_id}")["trial"],
                                      self._session)

    def get_checkpoint(self, uuid: str) -> checkpoint.Checkpoint:
        resp = self._session.get(f"/api/v1/checkpoints/{uuid}")
        return checkpoint.Checkpoint._from_json(resp["checkpoint"], self._session)

    # --- the model registry ---

    def create_model(self, name: str, description: Optional[str] = "",
                     metadata: Optional[Dict[str, Any]] = None, labels: Optional[List[str]] = None,
                     notes: Optional[str] = "", workspace_name: Optional[str] = None) -> model.Model:
        """Creates a model in the registry (in workspace `workspace_name`, default Uncategorized)."""
        body: Dict[str, Any] = {"name": name, "description": description or "", "metadata": metadata or {},
                                "labels": list(labels or []), "notes": notes or ""}
        if workspace_name:
            body["workspaceName"] = workspace_name
        return model.Model(self._session, self._session.post("/api/v1/models", body=body)["model"])

    def get_model(self, identifier: Union[str, int]) -> model.Model:
        """The model with this name, or this id."""
        return model.Model(self._session, self._session.get(model.model_path(identifier))["model"])

    def get_model_by_id(self, model_id: int) -> model.Model:
        return self.get_model(model_id)

    def list_models(self, sort_by: model.ModelSortBy = model.ModelSortBy.NAME,
                    order_by: OrderBy = OrderBy.ASCENDING, name: Optional[str] = "",
                    description: Optional[str] = "", model_id: Optional[int] = None,
                    workspace_names: Optional[List[str]] = None,
                    workspace_ids: Optional[List[int]] = None) -> List[model.Model]:
        params: Dict[str, Any] = {"sortBy": sort_by.value, "orderBy": order_by.value}
        if name:
            params["name"] = name
        if description:
            params["description"] = description
        if model_id is not None:
            params["id"] = model_id
        if workspace_names:
            params["workspaceNames"] = workspace_names
        if workspace_ids:
            params["workspaceIds"] = workspace_ids
        resp = self._session.get("/api/v1/models", params=params)
        return [model.Model(self._session, m) for m in resp.get("models") or []]

    def get_model_labels(self) -> List[str]:
        """Every model's labels, the most used first."""
        return list(self._session.get("/api/v1/model/labels").get("labels") or [])

    # --- metrics ---

    def iter_trials_metrics(self, trial_ids: List[int],
                            group: str) -> Iterator[metrics.TrialMetrics]:
        """
        Yields the metric reports of ``group`` (``"training"``, ``"validation"``, or any
        reported group) of the given trials.
        """
        return trial._stream_trials_metrics(self._session, trial_ids, group)

    def stream_trials_metrics(self, trial_ids: List[int],
                              group: str) -> Iterator[metrics.TrialMetrics]:
        """Deprecated name of ``iter_trials_metrics``."""
        warnings.warn("Determined.stream_trials_metrics() is deprecated; use "
                      "Determined.iter_trials_metrics()", FutureWarning, stacklevel=2)
        return self.iter_trials_metrics(trial_ids, group)

    def stream_trials_training_metrics(
            self, trial_ids: List[int]) -> Iterator[metrics.TrainingMetrics]:
        """Deprecated: ``iter_trials_metrics(trial_ids, group="training")``."""
        warnings.warn("Determined.stream_trials_training_metrics() is deprecated; use "
                      "Determined.iter_trials_metrics(group='training')", FutureWarning,
                      stacklevel=2)
        return trial._stream_training_metrics(self._session, trial_ids)

    def stream_trials_validation_metrics(
            self, trial_ids: List[int]) -> Iterator[metrics.ValidationMetrics]:
        """Deprecated: ``iter_trials_metrics(trial_ids, group="validation")``."""
        warnings.warn("Determined.stream_trials_validation_metrics() is deprecated; use "
                      "Determined.iter_trials_metrics(group='validation')", FutureWarning,
                      stacklevel=2)
        return trial._stream_validation_metrics(self._session, trial_ids)
