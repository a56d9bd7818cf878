import type { EndpointDef } from "../http/endpoint.js";
import { authRoutes } from "./auth.js";
import { userRoutes } from "./users.js";
import { eventRoutes } from "./events.js";
import { presenceRoutes } from "./presence.js";

/** Every API endpoint; each resource family lives in its own file. */
export const ALL_ENDPOINTS: EndpointDef[] = [...authRoutes, ...userRoutes, ...eventRoutes, ...presenceRoutes];
