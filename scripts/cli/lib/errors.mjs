// @ts-check
/** Errors of the command-line tool, each carrying the exit code it ends the process with. */

/** Exit codes: 0 success, 1 usage error, 2 the API refused, 3 network failure. */
export const EXIT = Object.freeze({ OK: 0, USAGE: 1, REFUSED: 2, NETWORK: 3 });

/** An error that ends the command with `exitCode` after printing its message. */
export class CliError extends Error {
  /**
   * @param {string} message for people
   * @param {number} exitCode
   */
  constructor(message, exitCode) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Wrong or missing arguments, unknown names, a refused confirmation: nothing was sent or changed. */
export class UsageError extends CliError {
  /** @param {string} message */
  constructor(message) {
    super(message, EXIT.USAGE);
  }
}

/** The API answered with an error status; its message is repeated. */
export class ApiRefusal extends CliError {
  /**
   * @param {string} message the API's own message
   * @param {number} status HTTP status
   * @param {string | undefined} code the API's error code
   */
  constructor(message, status, code) {
    super(message, EXIT.REFUSED);
    this.status = status;
    this.code = code;
  }
}

/** The API could not be reached, or answered something that is not the API. */
export class NetworkError extends CliError {
  /** @param {string} message */
  constructor(message) {
    super(message, EXIT.NETWORK);
  }
}
