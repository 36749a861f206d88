import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { App } from './App';
import { AuthProvider } from './auth';
import { prefetch } from './api';
import { listQuery, readParams } from './pages/ExperimentList';
import './styles.css';

// The experiment list is the landing page: ask for its rows now, beside the session check.
if (/^\/det(\/|\/experiments\/?)?$/.test(window.location.pathname)) {
  prefetch('/api/v1/experiments', listQuery(readParams(new URLSearchParams(window.location.search))));
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BrowserRouter basename="/det">
      <AuthProvider>
        <App />
      </AuthProvider>
    </BrowserRouter>
  </StrictMode>,
);
