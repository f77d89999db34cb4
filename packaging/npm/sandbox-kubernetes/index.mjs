import api from './lib/api.js';

export const {Sandbox, SandboxError, InvalidSpecError, SandboxNotFoundError} = api;
export default api;
