// The kubeplane serverless deployment: the step queue and its DLQ, the DynamoDB table, the step, dead-letter,
// API and watchdog functions (nodejs22.x, esbuild bundles), the API as an IAM-authorised function URL, the
// watchdog on a 5-minute schedule, and least-privilege roles. Plus a managed policy for the credentials kubeplane's AWS provider uses to build
// clusters: EC2 changes only on resources tagged kubeplane.dev/cluster-id, Route 53 only in the named zones.
import { ArnFormat, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { parseAccessGrants, type AccessGrant } from '../../packages/handlers/src/aws/access.js';
import { PARTITION_KEY, PREFIX_INDEX, SEGMENT_ATTRIBUTE, TTL_ATTRIBUTE } from '../../packages/handlers/src/aws/dynamodb-table.js';
import type { FunctionName } from './bundle.js';

export interface KubeplaneStackProps extends StackProps {
  /** Bundle directories from bundleHandlers(). */
  bundles: Record<FunctionName, { dir: string }>;
  /**
   * Who may read and change which project through the API (docs/serverless.md, "Who may do what"); empty, the API
   * refuses every request. Callers also need lambda:InvokeFunctionUrl on the API function to reach it at all.
   */
  access: AccessGrant[];
  /** Route 53 hosted zone ids the AWS provider may change records in. */
  hostedZoneIds: string[];
  /** Step function timeout (default 90 s); the lease (120 s) outlasts it, the visibility timeout is 6x it. */
  stepTimeoutSeconds?: number;
  maxReceiveCount?: number;
}

const CLUSTER_TAG = 'kubeplane.dev/cluster-id';
const SECRET_PREFIX = 'kubeplane/';
const PROVIDER_SECRET_PREFIX = 'kubeplane-providers/';

export class KubeplaneStack extends Stack {
  constructor(scope: Construct, id: string, props: KubeplaneStackProps) {
    super(scope, id, props);
    const stepTimeout = props.stepTimeoutSeconds ?? 90;
    const maxReceiveCount = props.maxReceiveCount ?? 5;
    const leaseSeconds = Math.max(120, stepTimeout + 30);

    const table = new dynamodb.Table(this, 'State', {
      partitionKey: { name: PARTITION_KEY, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The records of every cluster (what exists where): a stack update that would replace it fails instead.
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    table.addGlobalSecondaryIndex({
      indexName: PREFIX_INDEX,
      partitionKey: { name: SEGMENT_ATTRIBUTE, type: dynamodb.AttributeType.STRING },
      sortKey: { name: PARTITION_KEY, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.KEYS_ONLY,
    });

    const deadLetterTimeout = 30;
    // Messages name clusters and steps, never secrets; encrypted at rest all the same (SSE-SQS, no key to manage).
    const encryption = sqs.QueueEncryption.SQS_MANAGED;
    // Queue names are the stack's own, so each queue's ARN can be written before the queue exists: a redrive-allow
    // policy naming the queue that feeds it, while that queue names it as its DLQ, would otherwise be a cycle.
    const queueArn = (name: string) => this.formatArn({ service: 'sqs', resource: name, arnFormat: ArnFormat.NO_RESOURCE_NAME });
    const names = { steps: `${this.stackName}-steps`, deadLetter: `${this.stackName}-steps-dead-letter`, kept: `${this.stackName}-steps-kept` };
    const onlyFrom = (id: string, name: string) => ({ redrivePermission: sqs.RedrivePermission.BY_QUEUE, sourceQueues: [sqs.Queue.fromQueueArn(this, id, queueArn(name))] });
    // Dead letters once their clusters are marked ERROR (and the DLQ's own failures): read by no function, kept 14
    // days for inspection, and redriven with StartMessageMoveTask (docs/serverless.md, "Dead letters").
    const kept = new sqs.Queue(this, 'StepsKept', { queueName: names.kept, retentionPeriod: Duration.days(14), enforceSSL: true, encryption, redriveAllowPolicy: onlyFrom('DeadLetterSource', names.deadLetter) });
    const stepsDlq = new sqs.Queue(this, 'StepsDeadLetter', {
      queueName: names.deadLetter,
      retentionPeriod: Duration.days(14),
      visibilityTimeout: Duration.seconds(6 * deadLetterTimeout),
      deadLetterQueue: { queue: kept, maxReceiveCount: 3 },
      redriveAllowPolicy: onlyFrom('StepsSource', names.steps),
      enforceSSL: true,
      encryption,
    });
    // A standard queue: per-message DelaySeconds (FIFO has only a queue-wide delay). See docs/serverless.md.
    const steps = new sqs.Queue(this, 'Steps', {
      queueName: names.steps,
      visibilityTimeout: Duration.seconds(6 * stepTimeout),
      deadLetterQueue: { queue: stepsDlq, maxReceiveCount },
      enforceSSL: true,
      encryption,
    });

    const environment = {
      KUBEPLANE_TABLE: table.tableName,
      KUBEPLANE_QUEUE_URL: steps.queueUrl,
      KUBEPLANE_SECRET_PREFIX: SECRET_PREFIX,
      KUBEPLANE_MAX_RECEIVE_COUNT: String(maxReceiveCount),
      KUBEPLANE_LEASE_SECONDS: String(leaseSeconds),
      KUBEPLANE_VISIBILITY_SECONDS: String(6 * stepTimeout),
    };
    // Each function's logs kept a month, and a reserved concurrency: a flood of API calls cannot starve the steps of
    // the account's concurrency, nor a step storm the API, and no function scales past what its work needs.
    const fn = (id: string, name: FunctionName, timeout: number, reserved: number) =>
      new lambda.Function(this, id, {
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        handler: 'index.handler',
        code: lambda.Code.fromAsset(props.bundles[name].dir),
        timeout: Duration.seconds(timeout),
        memorySize: 512,
        environment,
        reservedConcurrentExecutions: reserved,
        logGroup: new logs.LogGroup(this, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.RETAIN }),
      });
    const stepConcurrency = 20;
    const stepFn = fn('StepFunction', 'step', stepTimeout, stepConcurrency);
    const deadLetterFn = fn('DeadLetterFunction', 'deadLetter', deadLetterTimeout, 2);
    const apiFn = fn('ApiFunction', 'api', 30, 10);
    const watchdogFn = fn('WatchdogFunction', 'watchdog', 60, 1);

    // The event sources stay within the reserved concurrency, so SQS never hands a function more than it may run.
    stepFn.addEventSource(new SqsEventSource(steps, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: stepConcurrency }));
    deadLetterFn.addEventSource(new SqsEventSource(stepsDlq, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 2 }));
    // Never anonymous: callers sign with SigV4 and need lambda:InvokeFunctionUrl on this function.
    apiFn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.AWS_IAM });
    // What each verified caller may do, for the API alone; checked here so a wrong grant fails the synth, not a cold start.
    apiFn.addEnvironment('KUBEPLANE_ACCESS', JSON.stringify(parseAccessGrants(props.access, 'KubeplaneStackProps.access')));

    // A lost step message stalls its cluster at most the overdue time (visibility + lease + 60 s) plus this period.
    new events.Rule(this, 'WatchdogSchedule', { schedule: events.Schedule.rate(Duration.minutes(5)), targets: [new eventTargets.LambdaFunction(watchdogFn)] });

    for (const f of [stepFn, deadLetterFn, apiFn, watchdogFn]) table.grantReadWriteData(f);
    // The functions that feed the step queue: a step queues its next, the API an apply's first, the watchdog a lost
    // one. The dead-letter function marks clusters failed and keeps the message.
    for (const f of [stepFn, apiFn, watchdogFn]) steps.grantSendMessages(f);
    kept.grantSendMessages(deadLetterFn);
    deadLetterFn.addEnvironment('KUBEPLANE_KEPT_QUEUE_URL', kept.queueUrl);
    const secretArn = (prefix: string) => this.formatArn({ service: 'secretsmanager', resource: 'secret', resourceName: `${prefix}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    const clusterSecrets = new iam.PolicyStatement({
      actions: ['secretsmanager:CreateSecret', 'secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue', 'secretsmanager:DeleteSecret', 'secretsmanager:RestoreSecret', 'secretsmanager:DescribeSecret', 'secretsmanager:TagResource', 'secretsmanager:UntagResource'],
      resources: [secretArn(SECRET_PREFIX)],
    });
    // ListSecrets has no resource-level permissions; the store filters by its name prefix.
    const listSecrets = new iam.PolicyStatement({ actions: ['secretsmanager:ListSecrets'], resources: ['*'] });
    // Only the step function writes and reads cluster secrets (CA keys, SSH keys, kubeconfigs): the API records intents
    // and reads status, the dead-letter function and the watchdog touch records only.
    stepFn.addToRolePolicy(clusterSecrets);
    stepFn.addToRolePolicy(listSecrets);
    // Only the step function talks to clouds, with credentials read from these secrets.
    stepFn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secretArn(PROVIDER_SECRET_PREFIX)] }));

    new iam.ManagedPolicy(this, 'ProviderPolicy', {
      description: `For the credentials in ${PROVIDER_SECRET_PREFIX}*: what kubeplane's AWS provider does, on resources tagged ${CLUSTER_TAG} only`,
      statements: providerStatements(this, props.hostedZoneIds),
    });
  }
}

function providerStatements(stack: Stack, zoneIds: string[]): iam.PolicyStatement[] {
  const ec2 = (resource: string) => stack.formatArn({ service: 'ec2', resource, resourceName: '*' });
  const tagged = { StringLike: { [`aws:ResourceTag/${CLUSTER_TAG}`]: '*' } };
  const tagging = { StringLike: { [`aws:RequestTag/${CLUSTER_TAG}`]: '*' } };
  return [
    // Reads have no resource-level permissions in EC2.
    new iam.PolicyStatement({
      actions: ['ec2:DescribeVpcs', 'ec2:DescribeSubnets', 'ec2:DescribeSecurityGroups', 'ec2:DescribeKeyPairs', 'ec2:DescribeInternetGateways', 'ec2:DescribeInstances', 'ec2:DescribeRouteTables', 'ec2:DescribeInstanceTypes', 'ec2:DescribeImages', 'ec2:DescribeAvailabilityZones', 'ec2:DescribeAddresses'],
      resources: ['*'],
    }),
    // Creating: only with the cluster tag in the request.
    new iam.PolicyStatement({
      actions: ['ec2:RunInstances', 'ec2:CreateVpc', 'ec2:CreateSubnet', 'ec2:CreateSecurityGroup', 'ec2:CreateInternetGateway', 'ec2:AllocateAddress', 'ec2:ImportKeyPair'],
      resources: ['instance', 'volume', 'network-interface', 'vpc', 'subnet', 'security-group', 'internet-gateway', 'elastic-ip', 'key-pair'].map(ec2),
      conditions: tagging,
    }),
    // RunInstances also names an image and, in the cluster's VPC, a subnet and security groups already tagged.
    new iam.PolicyStatement({ actions: ['ec2:RunInstances'], resources: [stack.formatArn({ service: 'ec2', account: '', resource: 'image', resourceName: '*' })] }),
    new iam.PolicyStatement({ actions: ['ec2:CreateTags'], resources: [ec2('*')], conditions: { StringEquals: { 'ec2:CreateAction': ['RunInstances', 'CreateVpc', 'CreateSubnet', 'CreateSecurityGroup', 'CreateInternetGateway', 'AllocateAddress', 'ImportKeyPair'] } } }),
    // Changing and deleting: only what carries the cluster tag.
    new iam.PolicyStatement({
      actions: ['ec2:TerminateInstances', 'ec2:RevokeSecurityGroupIngress', 'ec2:AuthorizeSecurityGroupIngress', 'ec2:ReleaseAddress', 'ec2:AssociateAddress', 'ec2:DisassociateAddress', 'ec2:DetachInternetGateway', 'ec2:AttachInternetGateway', 'ec2:DeleteInternetGateway', 'ec2:DeleteKeyPair', 'ec2:DeleteVpc', 'ec2:DeleteSubnet', 'ec2:DeleteSecurityGroup', 'ec2:CreateRoute', 'ec2:RunInstances'],
      resources: ['instance', 'vpc', 'subnet', 'security-group', 'internet-gateway', 'elastic-ip', 'key-pair', 'route-table', 'network-interface'].map(ec2),
      conditions: tagged,
    }),
    // No zones named: no record changes allowed at all.
    ...(zoneIds.length > 0 ? [new iam.PolicyStatement({ actions: ['route53:ChangeResourceRecordSets', 'route53:ListResourceRecordSets'], resources: zoneIds.map((id) => `arn:aws:route53:::hostedzone/${id}`) })] : []),
    // Health checks and zone look-ups have no resource-level permissions.
    new iam.PolicyStatement({ actions: ['route53:ListHostedZonesByName', 'route53:ListHealthChecks', 'route53:CreateHealthCheck', 'route53:DeleteHealthCheck'], resources: ['*'] }),
    new iam.PolicyStatement({ actions: ['route53:GetChange'], resources: ['arn:aws:route53:::change/*'] }),
  ];
}
