import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../test/uplotMock'; // the usage section's charts
import { mockFetch } from '../test/fetchMock';
import { renderAt } from '../test/render';
import Cluster, { deviceSummary } from './Cluster';

afterEach(() => vi.restoreAllMocks());

describe('Cluster', () => {
  it('shows pools and agents and disables an agent', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    const calls = mockFetch((c) => {
      if (c.url === '/api/v1/resource-pools') return { body: { resourcePools: [{ name: 'default', numAgents: 1, slotsAvailable: 2, slotsUsed: 1, slotType: 'TYPE_CPU', defaultComputePool: true }] } };
      if (c.url === '/api/v1/agents') return { body: { agents: [{ id: 'agent-1', slots: { '0': { id: '0', enabled: true, container: { id: 'a' } }, '1': { id: '1', enabled: true, container: null } }, resourcePools: ['default'], enabled: true, draining: false }] } };
      if (c.url === '/api/v1/agents/agent-1/disable') return { body: {} };
      return undefined;
    });
    renderAt('/clusters', '/clusters', <Cluster />);
    expect(await screen.findByText('agent-1')).toBeInTheDocument();
    expect(screen.getByText('1 of 2 slots in use · 1 agent')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Disable' }));
    await waitFor(() => expect(calls.some((c) => c.url === '/api/v1/agents/agent-1/disable' && c.method === 'POST')).toBe(true));
  });

  it('shows each agent\'s devices, GPU uuids on hover', async () => {
    const gpu = (id: string, uuid: string) => ({ id, enabled: true, container: null, device: { type: 'TYPE_CUDA', brand: 'NVIDIA H200', uuid } });
    mockFetch((c) => {
      if (c.url === '/api/v1/resource-pools') return { body: { resourcePools: [] } };
      if (c.url === '/api/v1/agents') return { body: { agents: [{ id: 'gpu-agent', slots: { '0': gpu('0', 'GPU-a'), '1': gpu('1', 'GPU-b') }, resourcePools: ['default'], enabled: true, draining: false }] } };
      return undefined;
    });
    renderAt('/clusters', '/clusters', <Cluster />);
    const cell = await screen.findByText('2 × NVIDIA H200 (cuda)');
    expect(cell).toHaveAttribute('title', 'GPU-a\nGPU-b');
    expect(deviceSummary([{ id: '0', enabled: true, device: { type: 'TYPE_CPU', brand: 'cpu' } }])).toBe('1 × cpu (cpu)');
  });
});
