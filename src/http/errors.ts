/**
 * The one error type of the API. Everything a request can fail with is a ZulipError;
 * the error handler turns it into Zulip's envelope: {result, msg, code, ...data}.
 */
export class ZulipError extends Error {
  constructor(
    readonly msg: string,
    readonly code: string = "BAD_REQUEST",
    readonly status: number = 400,
    readonly data: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(msg);
  }
}

export const badRequest = (msg: string, data: Record<string, unknown> = {}) =>
  new ZulipError(msg, "BAD_REQUEST", 400, data);

/** Zulip's ResourceNotFoundError: code BAD_REQUEST with HTTP 404. */
export const notFound = (msg: string) => new ZulipError(msg, "BAD_REQUEST", 404);

export const missingArgument = (name: string) =>
  new ZulipError(`Missing '${name}' argument`, "REQUEST_VARIABLE_MISSING", 400, { var_name: name });

export const confusingArguments = (a: string, b: string) =>
  new ZulipError(`Can't decide between '${a}' and '${b}' arguments`, "REQUEST_CONFUSING_VAR", 400);

export const incompatibleParameters = (names: string[]) =>
  new ZulipError(`Unsupported parameter combination: ${names.join(", ")}`, "BAD_REQUEST", 400, {
    parameters: names.join(", "),
  });

export const adminRequired = () =>
  new ZulipError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL", 400);

export const ownerRequired = () =>
  new ZulipError("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL", 400);

export const memberRequired = () =>
  new ZulipError("Must be an organization member", "UNAUTHORIZED_PRINCIPAL", 400);

const BASIC_CHALLENGE = { "WWW-Authenticate": 'Basic realm="zulip"' };

/** Failures of HTTP Basic credentials: always 401 UNAUTHORIZED with a Basic challenge. */
export const unauthorized = (msg: string) =>
  new ZulipError(msg, "UNAUTHORIZED", 401, {}, BASIC_CHALLENGE);

export const userDeactivated = () =>
  new ZulipError("Account is deactivated", "USER_DEACTIVATED", 401);

export const realmDeactivated = () =>
  new ZulipError("This organization has been deactivated", "REALM_DEACTIVATED", 401);

export const authenticationFailed = () =>
  new ZulipError("Your username or password is incorrect", "AUTHENTICATION_FAILED", 401);

export const streamDoesNotExistById = (streamId: number) =>
  new ZulipError(`Channel with ID '${streamId}' does not exist`, "STREAM_DOES_NOT_EXIST", 400, {
    stream_id: streamId,
  });

export const streamDoesNotExistByName = (name: string) =>
  new ZulipError(`Channel '${name}' does not exist`, "STREAM_DOES_NOT_EXIST", 400, { stream: name });

/** Zulip's ChannelExistsError. */
export const channelAlreadyExists = (name: string) =>
  new ZulipError(`Channel '${name}' already exists`, "CHANNEL_ALREADY_EXISTS", 409);

/** Zulip's CannotAdministerChannelError, for users who can see the channel. */
export const cannotAdministerChannel = () => badRequest("You do not have permission to administer this channel.");

export const guestNotAllowed = () => badRequest("Not allowed for guest users");

/** Zulip's BadNarrowOperatorError. */
export const badNarrow = (description: string) =>
  new ZulipError(`Invalid narrow operator: ${description}`, "BAD_NARROW", 400);
/** An event queue that does not exist, has expired, or belongs to someone else. */
export const badEventQueueId = (queueId: string) =>
  new ZulipError(`Bad event queue ID: ${queueId}`, "BAD_EVENT_QUEUE_ID", 400, { queue_id: queueId });

/** Mobile push (zerver/lib/push_notifications.py, zerver/lib/exceptions.py). */
export const invalidPushDeviceToken = () => new ZulipError("Device not recognized", "INVALID_PUSH_DEVICE_TOKEN", 400);
export const invalidRemotePushDeviceToken = () =>
  new ZulipError("Device not recognized by the push bouncer", "INVALID_REMOTE_PUSH_DEVICE_TOKEN", 400);
export const noActivePushDevice = () => new ZulipError("No active registered push device", "NO_ACTIVE_PUSH_DEVICE", 400);
export const pushServiceNotConfigured = () =>
  new ZulipError("Server is not configured to use push notification service.", "PUSH_SERVICE_NOT_CONFIGURED", 400);
export const adminActionRequired = () =>
  new ZulipError(
    "Push notification configuration issue on server, contact the server administrator or retry later.",
    "ADMIN_ACTION_REQUIRED",
    403,
  );
export const failedToConnectBouncer = () =>
  new ZulipError("Network error while connecting to Zulip push notification service.", "FAILED_TO_CONNECT_BOUNCER", 502);
export const internalServerErrorOnBouncer = () =>
  new ZulipError(
    "Internal server error on Zulip push notification service, retry later.",
    "INTERNAL_SERVER_ERROR_ON_BOUNCER",
    502,
  );
export type InvitationErrorEntry = [email: string, reason: string, deactivated: boolean];

/** Zulip's InvitationError: none or only some of the invitations went out. */
export const invitationFailed = (
  msg: string,
  errors: InvitationErrorEntry[],
  opts: { sentInvitations: boolean; dailyLimitReached?: boolean; licenseLimitReached?: boolean },
) =>
  new ZulipError(msg, "INVITATION_FAILED", 400, {
    errors,
    sent_invitations: opts.sentInvitations,
    license_limit_reached: opts.licenseLimitReached ?? false,
    daily_limit_reached: opts.dailyLimitReached ?? false,
  });

/** Zulip's ValidationFailureError: the first message, and every message by field in `errors`. */
export const validationFailure = (errors: Record<string, string[]>) =>
  badRequest(Object.values(errors)[0][0], { errors });
/** Zulip's CannotDeactivateGroupInUseError: lists every setting and group that still uses the group. */
export const cannotDeactivateGroupInUse = (objections: Record<string, unknown>[]) =>
  new ZulipError("Cannot deactivate user group in use.", "CANNOT_DEACTIVATE_GROUP_IN_USE", 400, { objections });

/** Zulip's RateLimitedError: 429, with the wait in seconds in the body and in Retry-After. */
export const rateLimited = (retryAfterSecs: number, headers: Record<string, string> = {}) =>
  new ZulipError("API usage exceeded rate limit", "RATE_LIMIT_HIT", 429, { "retry-after": retryAfterSecs }, {
    ...headers,
    "Retry-After": String(retryAfterSecs),
  });
