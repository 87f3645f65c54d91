// The error EC2's Query API answers with: an HTTP status and one of the codes AWS documents
// (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html), written as <Response><Errors><Error>.
export class Ec2Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
