// The kubeplane serverless deployment: the step queue and its DLQ, the DynamoDB table, the step, dead-letter,
// API and watchdog functions (nodejs22.x, esbuild bundles), the API as an IAM-authorised function URL, the
// watchdog on a 5-minute schedule, and least-privilege roles. Plus what kubeplane's AWS provider builds clusters with:
// ProviderRole, which the step function assumes per cluster with the session tag kubeplane.dev/cluster-id, and whose
// session touches only that cluster's EC2 resources; and ProviderPolicy, the fallback for static IAM-user keys.
import { ArnFormat, CfnOutput, Duration, Names, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { PARTITION_KEY, PREFIX_INDEX, SEGMENT_ATTRIBUTE, TTL_ATTRIBUTE, parseAccessGrants, type AccessGrant } from '@kubeplane/handlers/aws/deploy';
import type { DnsRecordType } from '@kubeplane/sdk/provider';
import { packagedBundles } from './bundles.js';
import type { FunctionBundle, FunctionName } from './functions.js';

/** What {@link KubeplaneStack} is made with: who may use the API, and where the AWS provider may work. */
export interface KubeplaneStackProps extends StackProps {
  /**
   * Where each function's code is. Default: the bundles this package ships (`lambda/<function>/index.mjs`, built from
   * the @kubeplane/handlers of the same version). Give your own to run handlers you bundled yourself.
   */
  bundles?: Record<FunctionName, FunctionBundle>;
  /**
   * Who may read and change which project through the API (docs/serverless.md, "Who may do what"); empty, the API
   * refuses every request. Callers also need lambda:InvokeFunctionUrl on the API function to reach it at all.
   */
  access: AccessGrant[];
  /** Route 53 hosted zone ids the AWS provider may change records in. */
  hostedZoneIds: string[];
  /**
   * The DNS names the AWS provider may write records under, each with every name below it (`example.com` allows
   * `hybrid.example.com`): your manifests' `dnsZone`s, or the subdomains their hostnames live in. None: no record
   * changes at all.
   */
  dnsDomains: string[];
  /**
   * The owners whose images the AWS provider may launch (`ec2:Owner`: an account id, or `amazon`). Default Amazon and
   * Canonical (099720109477, Ubuntu's images); add your account for your own AMIs.
   */
  imageOwners?: string[];
  /** The Regions the AWS provider may use (`aws:RequestedRegion`). Default every Region: pools may be anywhere. */
  regions?: string[];
  /** An external id the step function must give when it assumes ProviderRole (`sts:ExternalId`); default none. */
  providerRoleExternalId?: string;
  /** Step function timeout (default 90 s); the lease (120 s) outlasts it, the visibility timeout is 6x it. */
  stepTimeoutSeconds?: number;
  /** How often SQS delivers a step message before it moves it to the dead-letter queue (default 5). */
  maxReceiveCount?: number;
}

const CLUSTER_TAG = 'kubeplane.dev/cluster-id';
const SECRET_PREFIX = 'kubeplane/';
const PROVIDER_SECRET_PREFIX = 'kubeplane-providers/';
/** Canonical's account, which publishes Ubuntu's AMIs (https://documentation.ubuntu.com/aws/aws-how-to/instances/find-ubuntu-images/). */
const CANONICAL = '099720109477';

/**
 * kubeplane's AWS deploy as one CloudFormation stack: the step queue and its dead-letter queue, the DynamoDB table,
 * the four functions with least-privilege roles, the API behind an IAM-authorised function URL (output `ApiUrl`) and
 * the role the AWS provider assumes per cluster (output `ProviderRoleArn`).
 */
export class KubeplaneStack extends Stack {
  /** The API's function URL (`https://<id>.lambda-url.<region>.on.aws/`), callers sign their requests with SigV4. */
  readonly apiUrl: string;

  constructor(scope: Construct, id: string, props: KubeplaneStackProps) {
    super(scope, id, props);
    const bundles = props.bundles ?? packagedBundles();
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
    const onlyFrom = (id: string, name: string) => ({
      redrivePermission: sqs.RedrivePermission.BY_QUEUE,
      sourceQueues: [sqs.Queue.fromQueueArn(this, id, queueArn(name))],
    });
    // Dead letters once their clusters are marked ERROR (and the DLQ's own failures): read by no function, kept 14
    // days for inspection, and redriven with StartMessageMoveTask (docs/serverless.md, "Dead letters").
    const kept = new sqs.Queue(this, 'StepsKept', {
      queueName: names.kept,
      retentionPeriod: Duration.days(14),
      enforceSSL: true,
      encryption,
      redriveAllowPolicy: onlyFrom('DeadLetterSource', names.deadLetter),
    });
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
    const fn = (id: string, name: FunctionName, timeout: number, reserved: number) => {
      const logGroup = new logs.LogGroup(this, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.RETAIN });
      // A role of its own, not CDK's default one, which carries AWSLambdaBasicExecutionRole: logs:CreateLogGroup and
      // writes to every log group of the account. Lambda writes the function's output to this group alone, which the
      // stack makes, with the role (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs.html).
      const role = new iam.Role(this, `${id}Role`, {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: `kubeplane's ${name} function: what it calls, and no more (test/serverless/runtime-roles.e2e.test.ts)`,
      });
      logGroup.grantWrite(role);
      return new lambda.Function(this, id, {
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        handler: 'index.handler',
        code: lambda.Code.fromAsset(bundles[name].dir),
        timeout: Duration.seconds(timeout),
        memorySize: 512,
        environment,
        reservedConcurrentExecutions: reserved,
        role,
        logGroup,
      });
    };
    const stepConcurrency = 20;
    const stepFn = fn('StepFunction', 'step', stepTimeout, stepConcurrency);
    const deadLetterFn = fn('DeadLetterFunction', 'deadLetter', deadLetterTimeout, 2);
    const apiFn = fn('ApiFunction', 'api', 30, 10);
    const watchdogFn = fn('WatchdogFunction', 'watchdog', 60, 1);

    // Lambda polls a consumed queue with the function's role, which needs ReceiveMessage, DeleteMessage and
    // GetQueueAttributes on it (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-configure-lambda-function-trigger.html);
    // SqsEventSource would grant ChangeMessageVisibility and GetQueueUrl too, which neither Lambda nor the code calls.
    // The event sources stay within the reserved concurrency, so SQS never hands a function more than it may run.
    const consume = (f: lambda.Function, queue: sqs.Queue, maxConcurrency: number) => {
      f.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'], resources: [queue.queueArn] }),
      );
      // SqsEventSource's id for the mapping, so a deployed stack keeps its mappings.
      f.addEventSourceMapping(`SqsEventSource:${Names.nodeUniqueId(queue.node)}`, {
        eventSourceArn: queue.queueArn,
        batchSize: 10,
        reportBatchItemFailures: true,
        maxConcurrency,
      });
    };
    consume(stepFn, steps, stepConcurrency);
    consume(deadLetterFn, stepsDlq, 2);
    // Never anonymous: callers sign with SigV4 and need lambda:InvokeFunctionUrl on this function.
    const apiUrl = apiFn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.AWS_IAM });
    this.apiUrl = apiUrl.url;
    new CfnOutput(this, 'ApiUrl', { value: apiUrl.url, description: "kubeplane's API: sign requests with SigV4 for service lambda (docs/serverless.md)" });
    // What each verified caller may do, for the API alone; checked here so a wrong grant fails the synth, not a cold start.
    apiFn.addEnvironment('KUBEPLANE_ACCESS', JSON.stringify(parseAccessGrants(props.access, 'KubeplaneStackProps.access')));

    // A lost step message stalls its cluster at most the overdue time (visibility + lease + 60 s) plus this period.
    new events.Rule(this, 'WatchdogSchedule', { schedule: events.Schedule.rate(Duration.minutes(5)), targets: [new eventTargets.LambdaFunction(watchdogFn)] });

    // Each role holds what its function calls and no more; test/serverless/runtime-roles.e2e.test.ts records every call of a
    // realistic run and fails on a permission more or less. On the table, by key: records and rate budgets are read and
    // updated, leases and deduplication claims put (and a claim deleted when its send fails); the dead-letter function
    // only marks a cluster failed. Only the watchdog lists (projects, a query on the prefix index). grantReadWriteData
    // would add batch reads and writes, scans, transactions' checks, DescribeTable and stream reads, on every index.
    const tableAccess = (f: lambda.Function, actions: string[], indexActions: string[] = []) => {
      f.addToRolePolicy(new iam.PolicyStatement({ actions: actions.map((a) => `dynamodb:${a}`), resources: [table.tableArn] }));
      if (indexActions.length > 0)
        f.addToRolePolicy(
          new iam.PolicyStatement({ actions: indexActions.map((a) => `dynamodb:${a}`), resources: [`${table.tableArn}/index/${PREFIX_INDEX}`] }),
        );
    };
    const byKey = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'];
    tableAccess(stepFn, byKey);
    tableAccess(apiFn, byKey);
    tableAccess(watchdogFn, byKey, ['Query']);
    tableAccess(deadLetterFn, ['GetItem', 'UpdateItem']);
    // The functions that feed the step queue: a step queues its next, the API an apply's first, the watchdog a lost
    // one. The dead-letter function marks clusters failed and keeps the message. SendMessage alone: grantSendMessages
    // adds GetQueueAttributes and GetQueueUrl, which none calls.
    const sends = (f: lambda.Function, queue: sqs.Queue) =>
      f.addToRolePolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
    for (const f of [stepFn, apiFn, watchdogFn]) sends(f, steps);
    sends(deadLetterFn, kept);
    deadLetterFn.addEnvironment('KUBEPLANE_KEPT_QUEUE_URL', kept.queueUrl);
    const secretArn = (prefix: string) =>
      this.formatArn({ service: 'secretsmanager', resource: 'secret', resourceName: `${prefix}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    const clusterSecrets = new iam.PolicyStatement({
      actions: [
        'secretsmanager:CreateSecret',
        'secretsmanager:GetSecretValue',
        'secretsmanager:PutSecretValue',
        'secretsmanager:DeleteSecret',
        'secretsmanager:RestoreSecret',
        'secretsmanager:DescribeSecret',
        'secretsmanager:TagResource',
        'secretsmanager:UntagResource',
      ],
      resources: [secretArn(SECRET_PREFIX)],
    });
    // Only the step function writes and reads cluster secrets (CA keys, SSH keys, kubeconfigs): the API records intents
    // and reads status, the dead-letter function and the watchdog touch records only. By name: the engine never lists
    // secrets, so no ListSecrets (which IAM cannot scope: it would show every secret name of the account). Tagging, for
    // CreateSecret with tags (the API reference requires TagResource for it) and to bring a restored secret's tags in line.
    stepFn.addToRolePolicy(clusterSecrets);
    // Only the step function talks to clouds, with credentials read from these secrets.
    stepFn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secretArn(PROVIDER_SECRET_PREFIX)] }));

    const provider = {
      zoneIds: props.hostedZoneIds,
      dnsDomains: props.dnsDomains,
      imageOwners: props.imageOwners ?? ['amazon', CANONICAL],
      ...(props.regions ? { regions: props.regions } : {}),
    };
    // Short-lived credentials per cluster: the step function assumes ProviderRole with the session tag
    // kubeplane.dev/cluster-id = the cluster's id, and every create and change of the role's policies compares the
    // resource's cluster tag with that session tag, so a session touches only its own cluster (one cluster's step
    // cannot terminate another's machines, whatever its manifest says).
    const stepRole = stepFn.role;
    if (!stepRole) throw new Error('the step function has no role to assume ProviderRole with');
    const stepPrincipal = new iam.ArnPrincipal(stepRole.roleArn);
    // A tagged session carries the cluster tag and no other. An untagged one is for project-wide reads (preflight's
    // catalogs): with no session tag to compare with, every create and change of the role's policies is refused to it.
    const onlyClusterTag = { 'ForAllValues:StringEquals': { 'aws:TagKeys': [CLUSTER_TAG] } };
    const sessionTag = { Null: { [`aws:RequestTag/${CLUSTER_TAG}`]: 'false' }, ...onlyClusterTag };
    const providerRole = new iam.Role(this, 'ProviderRole', {
      description: `Assumed by the step function per cluster (session tag ${CLUSTER_TAG}): kubeplane's AWS provider, on that cluster's resources only`,
      // sts:ExternalId is a key of AssumeRole only, so it stays off the TagSession statement below.
      assumedBy: new iam.PrincipalWithConditions(stepPrincipal, {
        ...onlyClusterTag,
        ...(props.providerRoleExternalId ? { StringEquals: { 'sts:ExternalId': props.providerRoleExternalId } } : {}),
      }),
      maxSessionDuration: Duration.hours(1),
    });
    // Session tags need sts:TagSession in the trust policy besides sts:AssumeRole
    // (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html#id_session-tags_permissions-required).
    providerRole.assumeRolePolicy?.addStatements(new iam.PolicyStatement({ actions: ['sts:TagSession'], principals: [stepPrincipal], conditions: sessionTag }));
    stepFn.addToRolePolicy(new iam.PolicyStatement({ actions: ['sts:AssumeRole'], resources: [providerRole.roleArn], conditions: onlyClusterTag }));
    stepFn.addToRolePolicy(new iam.PolicyStatement({ actions: ['sts:TagSession'], resources: [providerRole.roleArn], conditions: sessionTag }));
    new CfnOutput(this, 'ProviderRoleArn', {
      value: providerRole.roleArn,
      description: 'The role the AWS provider assumes per cluster (session tag kubeplane.dev/cluster-id)',
    });
    new iam.ManagedPolicy(this, 'ProviderRolePolicy', {
      description: `ProviderRole's permissions: EC2 creates and changes only where ${CLUSTER_TAG} is the session's cluster`,
      statements: providerStatements(this, { ...provider, cluster: SESSION_CLUSTER }),
      roles: [providerRole],
    });
    // The fallback: long-lived keys of an IAM user in kubeplane-providers/* carry no session tag, so their policy can
    // only require that a resource carries some cluster's tag. Prefer ProviderRole.
    new iam.ManagedPolicy(this, 'ProviderPolicy', {
      description:
        `Fallback for static IAM-user keys in ${PROVIDER_SECRET_PREFIX}*: ` +
        `kubeplane's AWS provider on resources tagged ${CLUSTER_TAG} (any cluster); prefer ProviderRole`,
      statements: providerStatements(this, { ...provider, cluster: ANY_CLUSTER }),
    });
    // A spot pool's first RunInstances makes EC2 create the account's Spot service-linked role with the caller's
    // credentials, when it is not there yet ("AuthFailure.ServiceLinkedRoleCreationNotPermitted" otherwise:
    // https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/service-linked-roles-spot-instance-requests.html): that role
    // only. A policy of its own: ProviderRolePolicy is near IAM's 6,144 characters.
    new iam.ManagedPolicy(this, 'SpotServiceLinkedRolePolicy', {
      description: `Lets kubeplane's AWS provider have EC2 create its Spot service-linked role (a spot pool's first launch); attach it to fallback users too`,
      statements: [
        new iam.PolicyStatement({
          actions: ['iam:CreateServiceLinkedRole'],
          resources: [
            this.formatArn({ service: 'iam', region: '', resource: 'role', resourceName: 'aws-service-role/spot.amazonaws.com/AWSServiceRoleForEC2Spot' }),
          ],
          conditions: { StringEquals: { 'iam:AWSServiceName': 'spot.amazonaws.com' } },
        }),
      ],
      roles: [providerRole],
    });
  }
}

/**
 * How a statement names "this cluster": ProviderRole's sessions compare the tag with their own session tag (a policy
 * variable, https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html); an IAM user has no
 * session tags, so the fallback accepts any cluster's tag.
 */
interface ClusterScope {
  operator: 'StringEquals' | 'StringLike';
  value: string;
}
const SESSION_CLUSTER: ClusterScope = { operator: 'StringEquals', value: `\${aws:PrincipalTag/${CLUSTER_TAG}}` };
const ANY_CLUSTER: ClusterScope = { operator: 'StringLike', value: '*' };

interface ProviderPolicyOptions {
  cluster: ClusterScope;
  zoneIds: string[];
  dnsDomains: string[];
  imageOwners: string[];
  regions?: string[];
}

/** The record types kubeplane writes (DnsRecordType): a type added there fails to compile here until it is allowed. */
const RECORD_TYPES = Object.keys({ A: true, AAAA: true, CNAME: true } satisfies Record<DnsRecordType, true>);

/** What kubeplane's AWS provider calls (packages/providers/src/aws/: compute.ts, catalog.ts, network.ts, teardown.ts, route53-dns.ts), and no more. */
function providerStatements(stack: Stack, o: ProviderPolicyOptions): iam.PolicyStatement[] {
  // Every Region in the ARNs: a manifest's pools may be in any (the provider has a client per Region); `regions`
  // narrows it with a condition on every EC2 statement instead. Partition and account from the stack.
  const ec2 = (type: string) => stack.formatArn({ service: 'ec2', region: '*', resource: type, resourceName: '*' });
  const inRegions: Conditions = o.regions ? { StringEquals: { 'aws:RequestedRegion': o.regions } } : {};
  const ec2Statement = (actions: string[], resources: string[], conditions: Conditions = {}) =>
    new iam.PolicyStatement({ actions: actions.map((a) => `ec2:${a}`), resources, conditions: mergeConditions(conditions, inRegions) });
  const thisCluster = (key: 'aws:RequestTag' | 'aws:ResourceTag') => ({ [o.cluster.operator]: { [`${key}/${CLUSTER_TAG}`]: o.cluster.value } });
  const created = ['instance', 'volume', 'vpc', 'subnet', 'security-group', 'internet-gateway', 'elastic-ip', 'key-pair'];
  const createActions = ['RunInstances', 'CreateVpc', 'CreateSubnet', 'CreateSecurityGroup', 'CreateInternetGateway', 'AllocateAddress', 'ImportKeyPair'];
  const zones = o.zoneIds.map((id) => stack.formatArn({ service: 'route53', region: '', account: '', resource: 'hostedzone', resourceName: id }));
  const route53 = (resource: string) => stack.formatArn({ service: 'route53', region: '', account: '', resource, resourceName: '*' });
  return [
    // Reads have no resource-level permissions in EC2: a session can list every cluster's resources (not change them).
    ec2Statement(
      [
        'DescribeVpcs',
        'DescribeSubnets',
        'DescribeSecurityGroups',
        'DescribeKeyPairs',
        'DescribeInternetGateways',
        'DescribeInstances',
        'DescribeRouteTables',
        'DescribeInstanceTypes',
        'DescribeInstanceTypeOfferings',
        'DescribeImages',
        'DescribeAvailabilityZones',
        'DescribeRegions',
        'DescribeAddresses',
      ],
      ['*'],
    ),
    // Creating: only with this cluster's tag in the request (tag on create), and tagging only while creating.
    ec2Statement(createActions, created.map(ec2), thisCluster('aws:RequestTag')),
    ec2Statement(
      ['CreateTags'],
      [...created, 'network-interface'].map(ec2),
      mergeConditions(thisCluster('aws:RequestTag'), { StringEquals: { 'ec2:CreateAction': createActions } }),
    ),
    // RunInstances creates the instance's network interface too, which the provider tags like the instance and volume.
    ec2Statement(['RunInstances'], [ec2('network-interface')], thisCluster('aws:RequestTag')),
    // Only images of the owners named (Amazon's, Canonical's by default): not any AMI shared with or public to the account.
    ec2Statement(['RunInstances'], [stack.formatArn({ service: 'ec2', region: '*', account: '', resource: 'image', resourceName: '*' })], {
      StringEquals: { 'ec2:Owner': o.imageOwners },
    }),
    // Changing and deleting, and creating inside (a subnet in a VPC, an instance in a subnet with security groups and
    // a key pair): only what carries this cluster's tag.
    ec2Statement(
      [
        'TerminateInstances',
        'RevokeSecurityGroupIngress',
        'AuthorizeSecurityGroupIngress',
        'ReleaseAddress',
        'AssociateAddress',
        'DisassociateAddress',
        'DetachInternetGateway',
        'AttachInternetGateway',
        'DeleteInternetGateway',
        'DeleteKeyPair',
        'DeleteVpc',
        'DeleteSubnet',
        'DeleteSecurityGroup',
        'CreateRoute',
        'RunInstances',
        'CreateSubnet',
        'CreateSecurityGroup',
      ],
      ['instance', 'vpc', 'subnet', 'security-group', 'internet-gateway', 'elastic-ip', 'key-pair', 'route-table', 'network-interface'].map(ec2),
      thisCluster('aws:ResourceTag'),
    ),
    // The default route goes into the VPC's main route table, which EC2 makes with the VPC and cannot tag on creation
    // (CreateVpc tags the VPC only), so it carries no cluster tag. IAM cannot tie a route table to its VPC's tags (the
    // keys of CreateRoute's route-table are its own tags, ec2:RouteTableID and ec2:Vpc, an ARN:
    // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html), so a route may go into
    // any route table without a cluster tag; never into one tagged for a cluster, this one's aside (above).
    ec2Statement(['CreateRoute'], [ec2('route-table')], { Null: { [`aws:ResourceTag/${CLUSTER_TAG}`]: 'true' } }),
    // Records only in the zones named, only under the DNS domains named, only the types kubeplane writes, and only
    // UPSERT and DELETE (route53-dns.ts). Route 53 records carry no tags, so IAM cannot tell one cluster's from
    // another's: a session may change any record under those domains. Names are compared normalized (lower case, no
    // trailing dot: https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/specifying-rrset-conditions.html).
    ...(zones.length > 0 && o.dnsDomains.length > 0
      ? [
          new iam.PolicyStatement({
            actions: ['route53:ChangeResourceRecordSets'],
            resources: zones,
            conditions: {
              // ForAllValues is true of an empty set: the names must be there.
              Null: { 'route53:ChangeResourceRecordSetsNormalizedRecordNames': 'false' },
              'ForAllValues:StringLike': {
                'route53:ChangeResourceRecordSetsNormalizedRecordNames': o.dnsDomains.map(normalizedDomain).flatMap((d) => [d, `*.${d}`]),
              },
              'ForAllValues:StringEquals': {
                'route53:ChangeResourceRecordSetsRecordTypes': RECORD_TYPES,
                'route53:ChangeResourceRecordSetsActions': ['UPSERT', 'DELETE'],
              },
            },
          }),
        ]
      : []),
    ...(zones.length > 0 ? [new iam.PolicyStatement({ actions: ['route53:ListResourceRecordSets'], resources: zones })] : []),
    new iam.PolicyStatement({ actions: ['route53:GetChange'], resources: [route53('change')] }),
    // DeleteHealthCheck names a health check but has no condition keys, and Route 53 has no tag keys for IAM
    // (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonroute53.html): any health check of
    // the account, though nothing else. The provider deletes only checks whose CallerReference starts with its cluster id.
    new iam.PolicyStatement({ actions: ['route53:DeleteHealthCheck'], resources: [route53('healthcheck')] }),
    // Zone look-ups, health-check listing and creation have no resource-level permissions.
    new iam.PolicyStatement({ actions: ['route53:ListHostedZonesByName', 'route53:ListHealthChecks', 'route53:CreateHealthCheck'], resources: ['*'] }),
  ];
}

/** A policy statement's Condition block: operator, then condition key, then value(s). */
type Conditions = Record<string, Record<string, unknown>>;

/** Conditions of several sources in one block; two values for one operator and key cannot both hold, so that throws. */
function mergeConditions(...blocks: Conditions[]): Conditions {
  const out: Conditions = {};
  for (const block of blocks) {
    for (const [operator, keys] of Object.entries(block)) {
      for (const [key, value] of Object.entries(keys)) {
        if (out[operator]?.[key] !== undefined) throw new Error(`two conditions ${operator} on ${key}`);
        out[operator] = { ...out[operator], [key]: value };
      }
    }
  }
  return out;
}

/**
 * A DNS domain as Route 53's record-name condition key holds it: lower case, no trailing dot. Names with characters
 * other than letters, digits, '-', '_' and '.' would need octal escapes there; such a domain is refused.
 */
function normalizedDomain(domain: string): string {
  const name = domain.toLowerCase().replace(/\.$/, '');
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/.test(name)) throw new Error(`dnsDomains: ${domain} is not a DNS domain of letters, digits, '-', '_' and '.'`);
  return name;
}
