import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes, useLocation, useParams, useSearchParams } from 'react-router-dom';
import { useAuth } from './auth';
import { Layout } from './components/Layout';
import { Spinner } from './components/Feedback';
import { SignIn } from './pages/SignIn';
import { ExperimentList } from './pages/ExperimentList';

// The list is the landing page and loads with the app; the rest load on first visit.
const ExperimentDetail = lazy(() => import('./pages/ExperimentDetail'));
const TrialDetail = lazy(() => import('./pages/TrialDetail'));
const JobQueue = lazy(() => import('./pages/JobQueue'));
const Cluster = lazy(() => import('./pages/Cluster'));
const Tasks = lazy(() => import('./pages/Tasks'));
const AdminUsers = lazy(() => import('./pages/AdminUsers'));
const AdminGroups = lazy(() => import('./pages/AdminGroups'));
const Tokens = lazy(() => import('./pages/Tokens'));
const Compare = lazy(() => import('./pages/Compare'));
const AdminTemplates = lazy(() => import('./pages/AdminTemplates'));
const Workspaces = lazy(() => import('./pages/Workspaces'));
const WorkspaceDetail = lazy(() => import('./pages/WorkspaceDetail'));
const Models = lazy(() => import('./pages/Models'));
const ModelDetail = lazy(() => import('./pages/ModelDetail'));
const ModelVersionDetail = lazy(() => import('./pages/ModelVersionDetail'));

export function App() {
  const { user } = useAuth();
  const location = useLocation();
  if (user === undefined) return <Spinner label="Loading" />;
  if (user === null) {
    if (location.pathname === '/login') return <SignIn />;
    const redirect = location.pathname + location.search;
    return <Navigate to={`/login?redirect=${encodeURIComponent(redirect)}`} replace />;
  }
  return (
    <Layout>
      <Suspense fallback={<Spinner label="Loading page" />}>
        <Routes>
          <Route path="/" element={<Navigate to="/experiments" replace />} />
          <Route path="/login" element={<AfterSignIn />} />
          <Route path="/experiments" element={<ExperimentList />} />
          <Route path="/projects/:projectId/experiments" element={<ProjectExperiments />} />
          <Route path="/projects/:projectId" element={<ProjectExperiments />} />
          <Route path="/workspaces" element={<Workspaces />} />
          <Route path="/workspaces/:id" element={<WorkspaceDetail />} />
          <Route path="/workspaces/:id/:tab" element={<WorkspaceDetail />} />
          <Route path="/models" element={<Models />} />
          <Route path="/models/:name" element={<ModelDetail />} />
          <Route path="/models/:name/versions/:version" element={<ModelVersionDetail />} />
          <Route path="/experiments/:id" element={<ExperimentDetail />} />
          <Route path="/experiments/:id/:tab" element={<ExperimentDetail />} />
          <Route path="/trials/:id" element={<TrialDetail />} />
          <Route path="/trials/:id/:tab" element={<TrialDetail />} />
          <Route path="/experiments/:expId/trials/:id" element={<TrialDetail />} />
          <Route path="/experiments/:expId/trials/:id/:tab" element={<TrialDetail />} />
          <Route path="/compare" element={<Compare />} />
          <Route path="/jobs" element={<JobQueue />} />
          <Route path="/clusters/queue" element={<JobQueue />} />
          <Route path="/clusters" element={<Cluster />} />
          <Route path="/clusters/:tab" element={<Cluster />} />
          <Route path="/tasks" element={<Tasks />} />
          <Route path="/admin" element={<Navigate to="/admin/users" replace />} />
          <Route path="/admin/users" element={<AdminUsers />} />
          <Route path="/admin/groups" element={<AdminGroups />} />
          <Route path="/tokens" element={<Tokens />} />
          <Route path="/templates" element={<AdminTemplates />} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </Suspense>
    </Layout>
  );
}

// Signed in on /login: on to where the user was going (only paths inside the UI).
function AfterSignIn() {
  const [params] = useSearchParams();
  const redirect = params.get('redirect');
  const safe = redirect && redirect.startsWith('/') && !redirect.startsWith('//') && !redirect.startsWith('/login');
  return <Navigate to={safe ? redirect : '/experiments'} replace />;
}

// A project's experiments: a list of its own per project, so one project's rows and name never
// stand in for the next one's while it loads.
function ProjectExperiments() {
  const { projectId } = useParams();
  return <ExperimentList key={projectId} />;
}

function NotFound() {
  const location = useLocation();
  return (
    <div className="page">
      <h1>Page not found</h1>
      <p>
        Nothing lives at <code>/det{location.pathname}</code>.
      </p>
    </div>
  );
}
