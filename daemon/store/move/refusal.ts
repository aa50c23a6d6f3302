/** Why a move did not start, or stopped with the target left as it was: one line for the owner. */
export class MoveRefused extends Error {
  constructor(
    message: string,
    /** Further lines (the values PostgreSQL would refuse), printed after the message. */
    readonly details: readonly string[] = [],
  ) {
    super(message);
    this.name = 'MoveRefused';
  }
}
