import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';

import { IsWebUrl } from '@app/common';

import { SOCIAL_NETWORK_NAMES, SOCIAL_NETWORKS, SocialNetwork } from '../bio-fields';

/** A button of a bio page. */
export class BioLinkDto {
  @ApiProperty({ example: 'My shop', minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100, { message: 'title must be 1 to 100 characters' })
  title: string;

  @ApiProperty({
    example: 'https://shop.example/',
    maxLength: 2048,
    description:
      'Absolute http(s) URL. One of your own short links is accepted (and left out of the page while it is private).',
  })
  @IsString()
  @IsWebUrl()
  url: string;
}

/**
 * `socials`: `{<network>: url}`, each network at most once. The networks are fixed (an unknown
 * key is a 400); each value is an absolute http(s) URL.
 */
export class BioSocialsDto {
  facebook?: string;
  instagram?: string;
  x?: string;
  linkedin?: string;
  youtube?: string;
  tiktok?: string;
  threads?: string;
  bluesky?: string;
  mastodon?: string;
  pinterest?: string;
  snapchat?: string;
  twitch?: string;
  discord?: string;
  telegram?: string;
  whatsapp?: string;
  github?: string;
  spotify?: string;
  soundcloud?: string;
  website?: string;
}

// One validated, documented optional URL property per network.
for (const network of SOCIAL_NETWORK_NAMES) {
  const target = BioSocialsDto.prototype;
  ApiPropertyOptional({
    type: String,
    example: `https://${network === 'website' ? 'www.example.com' : `${network}.example/me`}`,
    maxLength: 2048,
    description: `${SOCIAL_NETWORKS[network as SocialNetwork]} (absolute http(s) URL)`,
  })(target, network);
  IsOptional()(target, network);
  IsString()(target, network);
  IsWebUrl()(target, network);
}
