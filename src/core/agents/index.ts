export * from './agentWorkspace';
