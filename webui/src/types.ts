// The subset of upstream's JSON messages the UI reads.

export type ExperimentState =
  | 'STATE_ACTIVE'
  | 'STATE_PAUSED'
  | 'STATE_STOPPING_COMPLETED'
  | 'STATE_STOPPING_CANCELED'
  | 'STATE_STOPPING_ERROR'
  | 'STATE_COMPLETED'
  | 'STATE_CANCELED'
  | 'STATE_ERROR'
  | 'STATE_DELETING'
  | 'STATE_DELETE_FAILED'
  | 'STATE_QUEUED'
  | 'STATE_PULLING'
  | 'STATE_STARTING'
  | 'STATE_RUNNING'
  | string;

export interface User {
  id: number;
  username: string;
  admin: boolean;
  active: boolean;
  displayName?: string;
  modifiedAt?: string;
}

export interface Pagination {
  offset?: number;
  limit?: number;
  startIndex?: number;
  endIndex?: number;
  total?: number;
}

export interface Experiment {
  id: number;
  name: string;
  description: string;
  labels: string[];
  startTime: string;
  endTime: string | null;
  state: ExperimentState;
  archived: boolean;
  numTrials: number;
  trialIds: number[];
  username: string;
  userId: number;
  resourcePool: string;
  searcherType: string;
  searcherMetric: string;
  progress: number | null;
  jobId: string;
  config: Record<string, unknown> | null;
  originalConfig?: string;
  checkpointCount?: number;
  checkpointSize?: string;
  projectId?: number;
  projectName?: string;
  workspaceId?: number;
  workspaceName?: string;
}

export interface ExperimentList {
  experiments: Experiment[];
  pagination: Pagination;
}

export interface MetricStats {
  count?: number;
  last?: number | string | null;
  min?: number;
  max?: number;
  mean?: number;
  type?: string;
}

export interface Trial {
  id: number;
  experimentId: number;
  startTime: string;
  endTime: string | null;
  state: string;
  restarts: number;
  hparams: Record<string, unknown>;
  totalBatchesProcessed: number;
  bestValidation: { metrics?: Record<string, unknown> } | null;
  latestValidation: { metrics?: Record<string, unknown> } | null;
  taskId: string;
  checkpointCount: number;
  summaryMetrics: Record<string, Record<string, MetricStats>>;
  searcherMetricValue?: number;
}

export interface MetricPoint {
  batches: number;
  values: Record<string, unknown>;
  time: string;
  epoch?: number;
}

export interface TrialSeries {
  trial: Trial;
  metrics: { data: MetricPoint[]; type: string; group: string }[];
}

export interface LogEntry {
  id: string;
  timestamp: string;
  log?: string;  // the line as written
  message: string;  // upstream's flat form: "[timestamp] container [rank=N] || LEVEL: line"
  level: string;
  source?: string;
  stdtype?: string;
  rankId?: number;
  agentId?: string;
}

export interface Checkpoint {
  uuid: string;
  state: string;
  reportTime: string;
  resources: Record<string, string>;
  metadata: Record<string, unknown>;
  training: {
    trialId: number;
    experimentId: number;
    validationMetrics?: { avgMetrics?: Record<string, unknown> } | null;
    searcherMetric?: number;
  };
}

export interface Job {
  jobId: string;
  type: string;
  name: string;
  entityId: string;
  summary?: { state: string; jobsAhead: number };
  submissionTime: string;
  username: string;
  resourcePool: string;
  isPreemptible?: boolean;
  priority?: number;
  weight?: number;
  requestedSlots: number;
  allocatedSlots: number;
  progress?: number;
}

// What job-queues-v2 shows of a job of a workspace one may not see (upstream's LimitedJob).
export type LimitedJob = Pick<Job, 'jobId' | 'type' | 'summary' | 'resourcePool' | 'isPreemptible' | 'priority' | 'weight'
  | 'requestedSlots' | 'allocatedSlots' | 'progress'> & { workspaceId: number };

export interface Agent {
  id: string;
  registeredTime?: string;
  slots: Record<string, { id: string; device?: { type?: string; brand?: string; uuid?: string }; enabled: boolean; container?: unknown; draining?: boolean }>;
  resourcePools: string[];
  addresses?: string[];
  enabled: boolean;
  draining: boolean;
}

export interface ResourcePool {
  name: string;
  description: string;
  type: string;
  numAgents: number;
  slotsAvailable: number;
  slotsUsed: number;
  slotType: string;
  auxContainerCapacity?: number;
  auxContainersRunning?: number;
  defaultComputePool?: boolean;
  defaultAuxPool?: boolean;
  schedulerType?: string;
  schedulerFittingPolicy?: string;
}

export interface Workspace {
  id: number;
  name: string;
  archived: boolean;
  immutable: boolean;
  numProjects: number;
  numExperiments: number;
  pinned: boolean;
  username: string;
  userId: number;
  defaultComputePool: string;
  defaultAuxPool: string;
  checkpointStorageConfig?: Record<string, unknown> | null;
  agentUserGroup?: Record<string, unknown> | null;
}

export interface Project {
  id: number;
  name: string;
  key: string;
  description: string;
  workspaceId: number;
  workspaceName: string;
  numExperiments: number;
  numActiveExperiments: number;
  archived: boolean;
  immutable: boolean;
  username: string;
  lastExperimentStartedAt?: string;
}

export interface Model {
  id: number;
  name: string;
  description: string;
  metadata: Record<string, unknown>;
  labels: string[];
  numVersions: number;
  workspaceId: number;
  archived: boolean;
  username: string;
  creationTime: string;
  lastUpdatedTime: string;
  notes: string;
}

export interface ModelVersion {
  id: number;
  version: number;
  name: string;
  comment: string;
  labels: string[];
  metadata: Record<string, unknown>;
  creationTime: string;
  lastUpdatedTime?: string;
  username: string;
  notes?: string;
  model?: Model;
  // null when the checkpoint is gone from the store.
  checkpoint: Checkpoint | null;
}

// RBAC (docs/rbac.md): groups, the built-in roles and who holds them where.
export interface Permission {
  id: string; // "PERMISSION_TYPE_UPDATE_GROUP"
  name: string;
  scopeTypeMask?: { cluster: boolean; workspace: boolean };
}

export interface Role {
  roleId: number;
  name: string;
  permissions: Permission[];
  scopeTypeMask?: { cluster: boolean; workspace: boolean };
}

export interface GroupSummary {
  group: { groupId: number; name: string };
  numMembers: number;
}

export interface GroupDetails {
  groupId: number;
  name: string;
  users: User[];
}

export interface RoleAssignment {
  role: Role;
  scopeCluster?: boolean;
  scopeWorkspaceId?: number;
}

// A role with every group and user that holds it (somewhere).
export interface RoleWithAssignments {
  role: Role;
  groupRoleAssignments: { groupId: number; roleAssignment: RoleAssignment }[];
  userRoleAssignments: { userId: number; roleAssignment: RoleAssignment }[];
}

// GET /api/v1/permissions/summary: the caller's roles, and where each is held.
export interface PermissionsSummary {
  roles: Role[];
  assignments: { roleId: number; scopeWorkspaceIds: number[]; scopeCluster: boolean }[];
}

export interface AccessToken {
  id: number;
  userId: number;
  expiry: string;
  createdAt: string;
  tokenType: string;
  revoked: boolean;
  description: string;
}
