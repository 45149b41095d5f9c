// What `numakit k8s agent-stop` needs of the agent: its journal's source name and whether the
// process that holds a change set open is a live numakit agent.
export { AGENT_SOURCE as AGENT_SOURCE_NAME } from '../../agent/journal.js';
export { agentRunning } from '../../agent/restore.js';
