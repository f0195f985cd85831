export * from './subAgentWorkspaces';
