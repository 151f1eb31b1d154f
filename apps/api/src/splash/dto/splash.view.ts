import { ApiProperty } from '@nestjs/swagger';

import { formatDateTime } from '@app/common';
import { SplashPage } from '@app/database';

import { SPLASH_DOC } from './splash-fields';

/** The documented custom splash page list entry. */
export class SplashView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'Holiday notice' })
  name: string;

  @ApiProperty({ example: '2024-11-21 10:00:00', description: 'Creation date-time (UTC)' })
  date: string;
}

/** `GET /api/splash/:id`: the list entry and everything the page shows. */
export class SplashDetailsView extends SplashView {
  @ApiProperty({ example: 'Our new collection', description: SPLASH_DOC.title })
  title: string;

  @ApiProperty({ example: 'Have a look before you go on.', description: SPLASH_DOC.message })
  message: string;

  @ApiProperty({ example: 'https://cdn.example/collection.jpg', description: SPLASH_DOC.image })
  image: string;

  @ApiProperty({ example: 'https://shop.example/collection', description: SPLASH_DOC.link })
  link: string;

  @ApiProperty({ type: 'integer', example: 5, description: SPLASH_DOC.countdown })
  countdown: number;

  @ApiProperty({ example: 'Continue', description: SPLASH_DOC.button })
  button: string;
}

/** `POST /api/splash/add`: `{error, id}`. */
export class SplashCreatedView {
  @ApiProperty({ example: 1 })
  id: number;
}

/** The view of a row. */
export function splashView(s: SplashPage): SplashView {
  return { id: s.id, name: s.name, date: formatDateTime(s.createdAt) as string };
}

export function splashDetailsView(s: SplashPage): SplashDetailsView {
  return {
    ...splashView(s),
    title: s.title,
    message: s.message,
    image: s.imageUrl,
    link: s.link,
    countdown: s.countdown,
    button: s.buttonText,
  };
}
