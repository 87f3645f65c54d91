// The AWS provider's catalog, for preflight: the Region's instance types with the zones that offer each, Ubuntu's
// images (and any AMI by id), the Regions the account has or could enable, and the Region's availability zones.
import type {
  DescribeAvailabilityZonesCommandOutput,
  DescribeImagesCommandOutput,
  DescribeInstanceTypeOfferingsCommandOutput,
  DescribeInstanceTypesCommandOutput,
  DescribeRegionsCommandOutput,
} from '@aws-sdk/client-ec2';
import { KubeplaneError } from '@kubeplane/sdk';
import { done, pending, type ImageInfo, type Outcome, type RegionInfo, type ServerTypeInfo, type ZoneInfo } from '@kubeplane/sdk/provider';
import { ListingAdvanced, type Ec2Calls } from './ec2-calls.js';

export class AwsCatalog {
  readonly #calls: Ec2Calls;

  constructor(calls: Ec2Calls) {
    this.#calls = calls;
  }

  /**
   * The types of the provider's Region (DescribeInstanceTypes lists "all instance types for the current Region"),
   * each with the zones that offer it (DescribeInstanceTypeOfferings by availability-zone): a GPU type is often
   * offered in some zones only, and RunInstances in another fails with Unsupported. The Region itself is listed
   * too, for pools that name no zone. Both calls are paged (NextToken), and resume from a page that failed.
   */
  async serverTypes(): Promise<Outcome<ServerTypeInfo[]>> {
    try {
      return await this.#serverTypes();
    } catch (error) {
      // A listing that read more pages before it failed is in progress: asked again, it goes on from there.
      if (error instanceof ListingAdvanced)
        return pending('in-progress', error.retryAfterSeconds, `instance types of ${this.#calls.region}: listing (${error.message})`);
      throw error;
    }
  }

  async #serverTypes(): Promise<Outcome<ServerTypeInfo[]>> {
    const types = await this.#calls.pages<DescribeInstanceTypesCommandOutput>(
      'DescribeInstanceTypes',
      (NextToken, sdk) => new sdk.DescribeInstanceTypesCommand({ MaxResults: 100, ...(NextToken ? { NextToken } : {}) }),
      { resumable: true },
    );
    const offerings = await this.#calls.pages<DescribeInstanceTypeOfferingsCommandOutput>(
      'DescribeInstanceTypeOfferings',
      (NextToken, sdk) =>
        new sdk.DescribeInstanceTypeOfferingsCommand({ LocationType: 'availability-zone', MaxResults: 1000, ...(NextToken ? { NextToken } : {}) }),
      { resumable: true },
    );
    const zonesOf = new Map<string, string[]>();
    for (const o of offerings.flatMap((page) => page.InstanceTypeOfferings ?? [])) {
      if (!o.InstanceType || !o.Location) continue;
      zonesOf.set(o.InstanceType, [...(zonesOf.get(o.InstanceType) ?? []), o.Location]);
    }
    return done(
      types
        .flatMap((page) => page.InstanceTypes ?? [])
        .map((t) => {
          const zones = (zonesOf.get(t.InstanceType ?? '') ?? []).sort();
          return {
            name: t.InstanceType ?? '',
            vcpus: t.VCpuInfo?.DefaultVCpus ?? 0,
            memoryGiB: (t.MemoryInfo?.SizeInMiB ?? 0) / 1024,
            architecture: t.ProcessorInfo?.SupportedArchitectures?.includes('arm64') ? ('arm64' as const) : ('x86_64' as const),
            // GpuInfo.Gpus: one entry per accelerator model, each with its count (DescribeInstanceTypes, GpuDeviceInfo).
            ...((n) => (n > 0 ? { gpus: n } : {}))((t.GpuInfo?.Gpus ?? []).reduce((sum, g) => sum + (g.Count ?? 0), 0)),
            availableIn: zones.length > 0 ? [this.#calls.region, ...zones] : [],
          };
        }),
    );
  }

  /**
   * DescribeRegions with AllRegions: the Regions enabled for the account, and those that exist but need opting in
   * (optInStatus not-opted-in), so that preflight can tell a Region that does not exist from one not enabled.
   */
  async regions(): Promise<Outcome<RegionInfo[]>> {
    const out = await this.#calls.send<DescribeRegionsCommandOutput>(
      'describe',
      'DescribeRegions',
      (sdk) => new sdk.DescribeRegionsCommand({ AllRegions: true }),
    );
    return done((out.Regions ?? []).map((r) => ({ name: r.RegionName ?? '', enabled: r.OptInStatus !== 'not-opted-in' })));
  }

  async images(): Promise<Outcome<ImageInfo[]>> {
    const out = await this.#calls.send<DescribeImagesCommandOutput>(
      'describe',
      'DescribeImages',
      (sdk) => new sdk.DescribeImagesCommand({ Owners: ['099720109477'] }),
    );
    return done(
      (out.Images ?? []).map((i) => ({
        id: i.ImageId ?? '',
        name: i.Name ?? '',
        architecture: i.Architecture === 'arm64' ? ('arm64' as const) : ('x86_64' as const),
      })),
    );
  }

  /** DescribeImages by id: an AMI id names one image in one region, whoever owns it; InvalidAMIID.* means none. */
  async image(ref: string): Promise<Outcome<ImageInfo | null>> {
    if (!ref.startsWith('ami-')) return done(null);
    try {
      const out = await this.#calls.send<DescribeImagesCommandOutput>(
        'describe',
        'DescribeImages',
        (sdk) => new sdk.DescribeImagesCommand({ ImageIds: [ref] }),
      );
      const i = out.Images?.[0];
      // EC2 gives an image its DeprecationTime in advance (Canonical's, two years after they are built): the image is
      // deprecated only once that time has passed (API_Image.html, DeprecationTime; the SDK's ImageInfo says the same).
      const deprecated = i?.DeprecationTime !== undefined && Date.parse(i.DeprecationTime) <= this.#calls.clock.now();
      return done(
        i
          ? {
              id: i.ImageId ?? ref,
              name: i.Name ?? ref,
              architecture: i.Architecture === 'arm64' ? ('arm64' as const) : ('x86_64' as const),
              ...(deprecated && i.DeprecationTime ? { deprecation: { announced: i.DeprecationTime } } : {}),
            }
          : null,
      );
    } catch (e) {
      if (e instanceof KubeplaneError && /^InvalidAMIID\./.test(e.details.code ?? '')) return done(null);
      throw e;
    }
  }

  async zones(): Promise<Outcome<ZoneInfo[]>> {
    const out = await this.#calls.send<DescribeAvailabilityZonesCommandOutput>(
      'describe',
      'DescribeAvailabilityZones',
      (sdk) => new sdk.DescribeAvailabilityZonesCommand({}),
    );
    return done((out.AvailabilityZones ?? []).map((z) => ({ name: z.ZoneName ?? '', region: z.RegionName ?? this.#calls.region })));
  }
}
