export const subscriptionRoutes = [];
